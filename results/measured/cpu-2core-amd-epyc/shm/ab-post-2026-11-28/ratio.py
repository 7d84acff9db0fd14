import sys, re, statistics, collections
# per version: size -> list of (oop ratio, ip ratio)
cur=None; back=None; rows={}; out=collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    if line.startswith('## '): cur=line.split()[1]; rows={}; continue
    if line.startswith('# Backend'): back='mpi' if 'mpi' in line.split()[2] else 'cclab'; continue
    f=line.split()
    if len(f)>=13 and f[0].isdigit():
        size=int(f[0]); oop=float(f[6]); ip=float(f[10])
        if back=='mpi': rows[size]=(oop,ip)
        else:
            m=rows[size]; out[cur][size].append((oop/m[0] if m[0] else 0, ip/m[1] if m[1] else 0))
for v in out:
    print(v, ' '.join(f"{s>>20}M:{statistics.median(r[0] for r in l):.2f}/{statistics.median(r[1] for r in l):.2f}" for s,l in sorted(out[v].items())))
