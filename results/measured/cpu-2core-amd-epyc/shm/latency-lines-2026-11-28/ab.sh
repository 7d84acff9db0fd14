#!/bin/bash
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 CCLAB_MODELS=/work/main/models
c=$1; rounds=$2
for r in $(seq $rounds); do for v in old new; do
  mpirun -np 2 --bind-to core /tmp/exp/ccbench.$v $c -b 64 -e 1K -f 2 --backend mpi,cclab --algo auto -n 20000 -w 1000 -J /tmp/lat/${c}_${v}_$r.json > /dev/null 2>&1
done; done
python3 - "$c" "$rounds" <<'PY'
import json,sys,statistics
c=sys.argv[1]; R=int(sys.argv[2])
for v in ['old','new']:
  res={}
  for r in range(1,R+1):
    for row in json.load(open(f'/tmp/lat/{c}_{v}_{r}.json'))['rows']:
      if row['in_place']: continue
      res.setdefault((row['size_bytes'],row['backend']),[]).append(row['time_us_p50'])
  sizes=sorted({k[0] for k in res})
  print(v, ' '.join(f"{s}: mpi {statistics.median(res[(s,'mpi')]):.3f} cclab {statistics.median(res[(s,'cclab')]):.3f} |" for s in sizes))
PY
