import sys, statistics, collections, glob
# Per file and variant: the range (min-max over sizes) of the median-over-rounds ratio of cclab's
# out-of-place algbw to the MPI library's, for sizes 1-512 B and 1-4 KiB.
def load(path):
    cur=None; back=None; rows={}; out=collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(path):
        if line.startswith('## '): cur=line.split()[1]; rows={}; continue
        if line.startswith('# Backend'): back='mpi' if 'mpi' in line.split()[2] else 'cclab'; continue
        f=line.split()
        if len(f)>=13 and f[0].isdigit() and float(f[5])>0:
            size=int(f[0]); t=float(f[5])
            if back=='mpi': rows[size]=t
            elif size in rows: out[cur][size].append(rows[size]/t)
    return {v:{s:statistics.median(l) for s,l in d.items()} for v,d in out.items()}
for path in sys.argv[1:]:
    name=path.split('/')[-1][:-4]
    for v,d in load(path).items():
        small=[r for s,r in d.items() if 0<s<=512]; mid=[r for s,r in d.items() if 1000<=s<=4096]
        print(f"| {name} | {v} | {min(small):.2f}-{max(small):.2f} | {min(mid):.2f}-{max(mid):.2f} |")
