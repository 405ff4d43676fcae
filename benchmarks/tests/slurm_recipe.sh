#!/usr/bin/env bash
# The SLURM recipe of docs/scaling.md, run as written on a real SLURM: a private munged, slurmctld
# and slurmd on this machine (one node, 4 CPUs declared), then
#   sbatch --nodes=1 --ntasks=3 benchmarks/slurm/scaling.sbatch TRAJ.h5 RESULTS
# from the source tree, and the merged report checked (a measured baseline, phases that add up,
# the log in RESULTS). Also: --ntasks=1 --cpus-per-task=2 (hybrid, baseline measured first).
#   slurm_recipe.sh SOURCE_DIR CHUNKWISE_BENCH PYTHON WORK_DIR
# Skips (exit 77) where SLURM or munge is not installed or this is not root.
set -uo pipefail
src="$1" bench="$2" python="$3" work="$4"
for p in slurmctld slurmd munged mungekey sbatch scontrol; do
  command -v "$p" >/dev/null 2>&1 || { echo "skipped: $p is not installed (Debian: slurm-wlm munge)"; exit 77; }
done
[[ $(id -u) -eq 0 ]] || { echo "skipped: slurmd needs root"; exit 77; }

# The chunkwise-bench of this build on PATH (found there first, as docs/scaling.md says), not
# another build's that the search in the source tree would reach first.
export PATH="$(cd "$(dirname "$bench")" && pwd):$PATH"
rm -rf "$work" && mkdir -p "$work"/{state,spool,log} || exit 1
work=$(cd "$work" && pwd)
export SLURM_CONF="$work/slurm.conf"
port=$((20000 + $$ % 20000))
cleanup() {
  for pid in slurmd slurmctld munged; do
    [[ -f "$work/$pid.pid" ]] && kill "$(cat "$work/$pid.pid")" 2>/dev/null
  done
  sleep 1
}
trap cleanup EXIT
mungekey -c -k "$work/munge.key" -f >/dev/null 2>&1 && chmod 400 "$work/munge.key" || { echo "mungekey failed"; exit 1; }
munged --socket="$work/munge.sock" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge.seed" -f || { echo "munged failed"; exit 1; }
host=$(hostname)
cat > "$SLURM_CONF" <<EOF
ClusterName=cwtest$$
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=4 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF" || { echo "slurmctld failed"; cat "$work/log/slurmctld.log"; exit 1; }
slurmd -f "$SLURM_CONF" || { echo "slurmd failed"; cat "$work/log/slurmd.log"; exit 1; }
for _ in $(seq 1 30); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %T | grep -q idle || { echo "the node never became idle"; tail "$work/log/"*.log; exit 1; }

"$bench" generate --layout chunk1 --atoms 3000 --frames 48 --out "$work/traj.h5" > /dev/null || exit 1
status=0
run() {  # run NAME SBATCH_OPTIONS... ; then check the report with the rest of check_report's options
  local name="$1"; shift
  local opts=() checks=()
  while (($#)) && [[ "$1" != "--" ]]; do opts+=("$1"); shift; done
  shift
  checks=("$@")
  local job
  job=$(cd "$src" && sbatch --parsable "${opts[@]}" benchmarks/slurm/scaling.sbatch "$work/traj.h5" "$work/$name") || {
    echo "FAILED: sbatch ${opts[*]}"; status=1; return; }
  local state=""
  for _ in $(seq 1 120); do
    state=$(scontrol show job "$job" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    [[ "$state" == COMPLETED || "$state" == FAILED || "$state" == CANCELLED || "$state" == TIMEOUT ]] && break
    sleep 1
  done
  echo "--- sbatch ${opts[*]}: job $job $state; its log, $work/$name/slurm-$job.out:"
  cat "$work/$name/slurm-$job.out" 2>/dev/null | grep -E "^(chunkwise scaling|===|scaling.sbatch|baseline)"
  if [[ "$state" != COMPLETED ]] || ! "$python" "$src/benchmarks/tests/check_report.py" "$work/$name" "${checks[@]}"; then
    echo "FAILED: sbatch ${opts[*]}"
    status=1
  fi
}
run ranks --nodes=1 --ntasks=3 -- --points 3 --mode mpi --ranks 1,2,3 --baseline 1
run hybrid --ntasks=1 --cpus-per-task=2 -- --points 2 --mode hybrid --baseline 1
# The template leaves nothing in the checkout.
if ls "$src"/*.out >/dev/null 2>&1; then echo "FAILED: the job left .out files in the checkout"; status=1; fi
((status == 0)) && echo "slurm recipe ok"
exit $status
