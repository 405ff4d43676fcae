#!/usr/bin/env bash
# Strong scaling across MPI ranks: one launch per rank count, merged into one report.
# Installed as bin/chunkwise-scale-mpi. docs/scaling.md walks through it.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scale-mpi.sh --ranks 1,2,4 [options] -- chunkwise-bench rmsd --file FILE.h5 --repeats 3 --out DIR

Runs the benchmark command once per rank count (mpiexec -n N, or srun -n N inside a SLURM
allocation), each launch writing its own report into DIR/npN, then merges them into DIR:
scaling.json, scaling.csv, scaling_ranks.csv, speedup.png and phases.png over every rank count,
with the per-phase model's prediction where three worker counts or more were measured.

A run on one worker is measured first (DIR/baseline) whenever the rank counts asked for give more
than one worker at their smallest, so that every speedup is against a measured baseline.

Options:
  --ranks LIST            rank counts to run at, e.g. 1,2,4,8 (required)
  --threads-per-rank T    threads in each rank (hybrid_policy); default 1 (mpi_policy)
  --hostfile FILE         the hosts to run on, as mpiexec reads them (Open MPI: "host slots=N");
                          ranks are spread one host after another (--map-by node)
  --host LIST             the hosts to run on, e.g. node1:4,node2:4 (mpiexec --host), spread likewise
  --cores-per-node C      the prediction also in nodes of C cores, with core-hours per run
  --mpiexec PATH          the mpiexec to use (default: mpiexec on PATH, or $MPIEXEC)
  --launcher CMD          call `CMD N PROGRAM ARGS...` instead of mpiexec (e.g. the chunkwise-mpiexec
                          a chunkwise build writes: mpiexec with its flags)
  --no-baseline           do not measure the one-worker run first (speedups are then relative to
                          the fewest workers measured, and the report says so)
  -h, --help              this text

Each report says how many hosts it was given (CHUNKWISE_BENCH_HOSTS) and notes a rank count that
ran on fewer; scaling_hosts.csv holds each host's ranks, threads, busy and read time and bytes.

With more than one thread per rank, Open MPI's binding of each rank to one core is turned off
(OMPI_MCA_hwloc_base_binding_policy=none), so that a rank's threads get cores of their own.

Inside a SLURM allocation each launch is `srun -N M -n N -c T` (M = min(N, the allocation's
nodes): the ranks spread over the nodes, each with T cores for its T threads: srun does not take
--cpus-per-task from the allocation since SLURM 22.05), with the MPI plugin srun offers (SLURM_MPI_TYPE if set, else pmix, else pmi2); a rank count larger than
the allocation's tasks is refused.
EOF
}

die() { echo "scale-mpi.sh: $*" >&2; exit 2; }

ranks="" threads=1 mpiexec="${MPIEXEC:-mpiexec}" launcher="" hostfile="" hosts="" baseline=1 per_node=""
while (($#)); do
  case "$1" in
    --ranks) ranks="${2:-}"; shift 2 || die "--ranks needs a value" ;;
    --threads-per-rank) threads="${2:-}"; shift 2 || die "--threads-per-rank needs a value" ;;
    --mpiexec) mpiexec="${2:-}"; shift 2 || die "--mpiexec needs a value" ;;
    --launcher) launcher="${2:-}"; shift 2 || die "--launcher needs a value" ;;
    --hostfile) hostfile="${2:-}"; shift 2 || die "--hostfile needs a file" ;;
    --host) hosts="${2:-}"; shift 2 || die "--host needs a list of hosts" ;;
    --no-baseline) baseline=0; shift ;;
    --cores-per-node) per_node="${2:-}"; shift 2 || die "--cores-per-node needs a value" ;;
    --) shift; break ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (the benchmark command goes after --; see --help)" ;;
  esac
done
(($#)) || die "no benchmark command after -- (e.g. -- chunkwise-bench rmsd --file FILE.h5 --out DIR)"
[[ -n "$ranks" ]] || die "--ranks is required, e.g. --ranks 1,2,4"
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads-per-rank: '$threads' is not a whole number of at least 1"
IFS=, read -r -a rank_list <<< "$ranks"
for n in "${rank_list[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--ranks: '$n' is not a rank count of at least 1"
done
[[ -z "$hostfile" || -z "$hosts" ]] || die "give --hostfile or --host, not both"
[[ -z "$per_node" || "$per_node" =~ ^[1-9][0-9]*$ ]] || die "--cores-per-node: '$per_node' is not a whole number of at least 1"

# Every host named must be one this machine can reach by name.
check_host() {
  local h="$1" from="$2"
  [[ -n "$h" ]] || return 0
  getent hosts "$h" >/dev/null 2>&1 || [[ "$h" == "localhost" || "$h" == "$(hostname)" ]] ||
    die "$from names the host '$h', which this machine does not know (not in /etc/hosts or DNS)"
}
mpi_hosts=() given=()
if [[ -n "$hostfile" ]]; then
  [[ -r "$hostfile" ]] || die "--hostfile: cannot read $hostfile"
  while read -r first _; do
    [[ -z "$first" || "$first" == \#* ]] && continue
    check_host "${first%%:*}" "the hostfile $hostfile"
    given+=("${first%%:*}")
  done < "$hostfile"
  # One rank per host in turn (Open MPI fills a host's slots first otherwise: 2 ranks on node1).
  mpi_hosts=(--hostfile "$hostfile" --map-by node)
fi
if [[ -n "$hosts" ]]; then
  IFS=, read -r -a host_list <<< "$hosts"
  for h in "${host_list[@]}"; do check_host "${h%%:*}" "--host"; given+=("${h%%:*}"); done
  mpi_hosts=(--host "$hosts" --map-by node)
fi
# How many hosts the run was given: each report says so, and notes a rank count on fewer.
if ((${#given[@]})); then
  CHUNKWISE_BENCH_HOSTS=$(printf '%s\n' "${given[@]}" | sort -u | wc -l)
  export CHUNKWISE_BENCH_HOSTS
fi

# The command's own --out is where the merged report goes; each launch gets a folder inside it.
cmd=() out=""
while (($#)); do
  if [[ "$1" == "--out" ]]; then out="${2:-}"; shift 2 || die "--out needs a value"; else cmd+=("$1"); shift; fi
done
[[ -n "$out" ]] || die "the benchmark command needs --out DIR"
bench="${cmd[0]}"
command -v "$bench" >/dev/null 2>&1 || die "'$bench' is not a program (give its path)"
mkdir -p "$out" 2>/dev/null && [[ -w "$out" ]] || die "cannot write into the folder $out"

in_slurm=0
[[ -z "$launcher" && -n "${SLURM_JOB_ID:-}" ]] && command -v srun >/dev/null 2>&1 && in_slurm=1
srun_mpi=()
if ((in_slurm)); then
  tasks="${SLURM_NTASKS:-${SLURM_NPROCS:-1}}"
  for n in "${rank_list[@]}"; do
    ((n <= tasks)) || die "the SLURM allocation has $tasks task(s) (SLURM_NTASKS); --ranks asks for $n: ask sbatch for --ntasks=$n or more"
  done
  ((${#mpi_hosts[@]} == 0)) || echo "scale-mpi.sh: inside SLURM the allocation decides the hosts; ${mpi_hosts[*]} is not used" >&2
  # The MPI plugin srun needs for this MPI (Open MPI built without SLURM's PMI needs PMIx).
  plugin="${SLURM_MPI_TYPE:-}"
  if [[ -z "$plugin" ]]; then
    offered=$(srun --mpi=list 2>&1 | sed -n 's/^[^a-z]*\(pmix[a-z0-9_]*\|pmi2\|cray_shasta\).*/\1/p' | sort -u)
    for want in pmix pmix_v5 pmix_v4 pmix_v3 pmi2; do
      if grep -qx "$want" <<< "$offered"; then plugin="$want"; break; fi
    done
  fi
  [[ -n "$plugin" ]] && srun_mpi=(--mpi="$plugin")
  nodes="${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}"
  [[ "$nodes" =~ ^[1-9][0-9]*$ ]] || nodes=1
  export CHUNKWISE_BENCH_HOSTS="$nodes"
elif [[ -z "$launcher" ]] && ! command -v "$mpiexec" >/dev/null 2>&1; then
  die "$mpiexec not found: install an MPI (Debian: openmpi-bin), or pass --mpiexec PATH or --launcher CMD"
fi

launch() {  # launch N T PROGRAM ARGS...: N ranks of T threads
  local n="$1" t="$2"; shift 2
  if [[ -n "$launcher" ]]; then
    $launcher "$n" ${mpi_hosts[@]+"${mpi_hosts[@]}"} "$@"
  elif ((in_slurm)); then
    # -N: the ranks over as many nodes as they can fill; -c: T cores per rank.
    srun ${srun_mpi[@]+"${srun_mpi[@]}"} -N "$((n < nodes ? n : nodes))" -n "$n" -c "$t" "$@"
  else
    "$mpiexec" ${mpi_hosts[@]+"${mpi_hosts[@]}"} -n "$n" "$@"
  fi
}

# A rank running T threads needs T cores: Open MPI binds each rank to one core by default (its
# threads would then share it), so binding is off for hybrid runs; under SLURM, srun -c T binds
# each task to T cores.
((threads > 1)) && export OMPI_MCA_hwloc_base_binding_policy=none

smallest="${rank_list[0]}"
for n in "${rank_list[@]}"; do ((n < smallest)) && smallest=$n; done
runs=()
if ((baseline && smallest * threads > 1)); then
  echo "=== baseline: 1 rank x 1 thread (speedups are measured against it) ==="
  launch 1 1 "${cmd[@]}" --mode mpi --threads 1 --out "$out/baseline" || die "the baseline run (1 rank) failed"
  runs+=("$out/baseline")
fi
for n in "${rank_list[@]}"; do
  echo "=== $n rank(s) x $threads thread(s) ==="
  launch "$n" "$threads" "${cmd[@]}" --mode mpi --threads "$threads" --out "$out/np$n" || die "the run at $n rank(s) failed"
  runs+=("$out/np$n")
done
echo "=== merged: $out ==="
"$bench" merge --out "$out" ${per_node:+--cores-per-node "$per_node"} "${runs[@]}"
