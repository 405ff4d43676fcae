#!/usr/bin/env bash
# scale-mpi.sh places ranks as asked: under SLURM each srun gets -N (the ranks over the nodes) and
# -c (a core per thread of a rank); with --hostfile or --host, mpiexec spreads the ranks one host
# after another (--map-by node); the reports learn how many hosts were given; a host that does not
# resolve is refused by name. A recording srun and mpiexec on PATH stand in for the real ones.
# usage: placement_args.sh SCALE_MPI_SH
set -euo pipefail
scale="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$tmp/bin"
cat > "$tmp/bin/srun" <<'X'
#!/bin/sh
if [ "$1" = "--mpi=list" ]; then echo "MPI plugin types are..."; echo "        pmix"; exit 0; fi
echo "srun $*" >> "$LOG"
X
cat > "$tmp/bin/mpiexec" <<'X'
#!/bin/sh
echo "mpiexec $*" >> "$LOG"
X
cat > "$tmp/bin/fake-bench" <<'X'
#!/bin/sh
echo "bench $1 hosts=${CHUNKWISE_BENCH_HOSTS:-unset}" >> "$LOG"
echo "args $*" >> "$LOG"
X
chmod +x "$tmp/bin/"*
export PATH="$tmp/bin:$PATH" LOG="$tmp/log"

# SLURM: 2 nodes, 4 tasks, 2 threads per rank.
env SLURM_JOB_ID=7 SLURM_NTASKS=4 SLURM_JOB_NUM_NODES=2 \
  "$scale" --ranks 1,2,4 --threads-per-rank 2 -- fake-bench rmsd --file x.h5 --out "$tmp/slurm" > /dev/null
cat "$LOG"
grep -qx "srun --mpi=pmix -N 1 -n 1 -c 1 fake-bench rmsd --file x.h5 --mode mpi --threads 1 --out $tmp/slurm/baseline" "$LOG" ||
  fail "the baseline's srun line"
grep -qx "srun --mpi=pmix -N 1 -n 1 -c 2 fake-bench rmsd --file x.h5 --mode mpi --threads 2 --out $tmp/slurm/np1" "$LOG" ||
  fail "srun at 1 rank: -N 1 -c 2"
grep -qx "srun --mpi=pmix -N 2 -n 2 -c 2 fake-bench .*np2" "$LOG" || fail "srun at 2 ranks: -N 2 -c 2"
grep -qx "srun --mpi=pmix -N 2 -n 4 -c 2 fake-bench .*np4" "$LOG" || fail "srun at 4 ranks: -N 2 (all nodes) -c 2"
grep -qx "bench merge hosts=2" "$LOG" || fail "the merge did not learn the 2 nodes"
: > "$LOG"

# A hostfile: mpiexec spreads the ranks over its hosts.
printf 'localhost slots=2\n%s slots=2\n' "$(hostname)" > "$tmp/hosts"
"$scale" --ranks 2 --hostfile "$tmp/hosts" --no-baseline -- fake-bench rmsd --out "$tmp/hf" > /dev/null
cat "$LOG"
grep -qx "mpiexec --hostfile $tmp/hosts --map-by node -n 2 fake-bench rmsd --mode mpi --threads 1 --out $tmp/hf/np2" "$LOG" ||
  fail "mpiexec with a hostfile: --map-by node"
grep -qx "bench merge hosts=2" "$LOG" || fail "the merge did not learn the hostfile's 2 hosts"
: > "$LOG"
"$scale" --ranks 2 --host "localhost:1,$(hostname):1" --no-baseline -- fake-bench rmsd --out "$tmp/h" > /dev/null
grep -qx "mpiexec --host localhost:1,$(hostname):1 --map-by node -n 2 fake-bench rmsd --mode mpi --threads 1 --out $tmp/h/np2" "$LOG" ||
  fail "mpiexec with --host: --map-by node"

# A host that does not resolve, in a hostfile and in --host: refused, naming it.
printf 'localhost slots=2\nno-such-host.invalid slots=2\n' > "$tmp/bad"
if out=$("$scale" --ranks 2 --hostfile "$tmp/bad" -- fake-bench rmsd --out "$tmp/x" 2>&1); then fail "a bad hostfile ran"; fi
grep -q "names the host 'no-such-host.invalid', which this machine does not know" <<< "$out" || fail "message: $out"
if out=$("$scale" --ranks 2 --host no-such-host.invalid:2 -- fake-bench rmsd --out "$tmp/x" 2>&1); then fail "a bad --host ran"; fi
grep -q "'no-such-host.invalid'" <<< "$out" || fail "message: $out"
# --cores-per-node reaches the merge; a bad one is refused.
: > "$LOG"
"$scale" --ranks 2 --cores-per-node 2 --no-baseline -- fake-bench rmsd --out "$tmp/c" > /dev/null
grep -qx "args merge --out $tmp/c --cores-per-node 2 $tmp/c/np2" "$LOG" || fail "--cores-per-node did not reach the merge"
if out=$("$scale" --ranks 2 --cores-per-node 0 -- fake-bench rmsd --out "$tmp/x" 2>&1); then fail "--cores-per-node 0 ran"; fi
grep -q "cores-per-node: '0'" <<< "$out" || fail "message: $out"
echo "placement: srun -N/-c, mpiexec --map-by node, hosts given, bad hosts refused"
