#!/usr/bin/env bash
# Strong scaling across MPI ranks: one launch per rank count, every point merged into one report.
#
#   benchmarks/scale-mpi.sh --ranks 1,2,4 [--threads-per-rank T] [--mpiexec PATH | --launcher CMD]
#                           -- chunkwise-bench rmsd --file FILE.h5 --repeats 3 --out DIR
#
# For each N it runs `mpiexec -n N` (inside a SLURM allocation: `srun -n N`) on the command with
# --out DIR/npN --mode mpi --threads T, then `chunkwise-bench merge --out DIR DIR/np*`: DIR gets
# scaling.json, scaling.csv, speedup.png and phases.png over every rank count.
#   --mpiexec PATH   the mpiexec to use (default: mpiexec on PATH; $MPIEXEC if set)
#   --launcher CMD   a launcher called as `CMD N PROGRAM ARGS...` instead (e.g. the
#                    chunkwise-mpiexec a chunkwise build writes: mpiexec with its flags)
# Installed as bin/chunkwise-scale-mpi. See docs/scaling.md.
set -euo pipefail

die() { echo "scale-mpi.sh: $*" >&2; exit 2; }

ranks="" threads=1 mpiexec="${MPIEXEC:-mpiexec}" launcher=""
while (($#)); do
  case "$1" in
    --ranks) ranks="${2:-}"; shift 2 || die "--ranks needs a value" ;;
    --threads-per-rank) threads="${2:-}"; shift 2 || die "--threads-per-rank needs a value" ;;
    --mpiexec) mpiexec="${2:-}"; shift 2 || die "--mpiexec needs a value" ;;
    --launcher) launcher="${2:-}"; shift 2 || die "--launcher needs a value" ;;
    --) shift; break ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown option $1 (the benchmark command goes after --)" ;;
  esac
done
(($#)) || die "no benchmark command after -- (e.g. -- chunkwise-bench rmsd --file FILE.h5 --out DIR)"
[[ -n "$ranks" ]] || die "--ranks is required, e.g. --ranks 1,2,4"
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads-per-rank: '$threads' is not a whole number of at least 1"
IFS=, read -r -a rank_list <<< "$ranks"
for n in "${rank_list[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--ranks: '$n' is not a rank count of at least 1"
done

# The command's own --out is where the merged report goes; each launch gets a folder inside it.
cmd=() out=""
while (($#)); do
  if [[ "$1" == "--out" ]]; then out="${2:-}"; shift 2 || die "--out needs a value"; else cmd+=("$1"); shift; fi
done
[[ -n "$out" ]] || die "the benchmark command needs --out DIR"
bench="${cmd[0]}"
command -v "$bench" >/dev/null 2>&1 || die "'$bench' is not a program (give its path)"
mkdir -p "$out" 2>/dev/null && [[ -w "$out" ]] || die "cannot write into the folder $out"

launch() {  # launch N PROGRAM ARGS...
  local n="$1"; shift
  if [[ -n "$launcher" ]]; then
    $launcher "$n" "$@"
  elif [[ -n "${SLURM_JOB_ID:-}" ]] && command -v srun >/dev/null 2>&1; then
    srun -n "$n" "$@"
  else
    "$mpiexec" -n "$n" "$@"
  fi
}
if [[ -z "$launcher" && -z "${SLURM_JOB_ID:-}" ]] && ! command -v "$mpiexec" >/dev/null 2>&1; then
  die "$mpiexec not found: install an MPI (Debian: openmpi-bin), or pass --mpiexec PATH or --launcher CMD"
fi

runs=()
for n in "${rank_list[@]}"; do
  echo "=== $n rank(s) x $threads thread(s) ==="
  launch "$n" "${cmd[@]}" --mode mpi --threads "$threads" --out "$out/np$n" || die "the run at $n rank(s) failed"
  runs+=("$out/np$n")
done
echo "=== merged: $out ==="
"$bench" merge --out "$out" "${runs[@]}"
