#!/usr/bin/env bash
# Bad input to chunkwise-bench and scale-mpi.sh gets a clear message and a failing exit status:
#   bad_input.sh CHUNKWISE_BENCH SCALE_MPI_SH TRAJECTORY.h5 SCRATCH_DIR
set -uo pipefail
bench="$1" scale="$2" traj="$3" tmp="$4"
mkdir -p "$tmp"
: > "$tmp/a-file"
# An HDF5 file without the trajectory: the RMSD output of a quick run (it holds /rmsd only).
"$bench" rmsd --file "$traj" --threads 1 --repeats 1 --warmup 0 --out "$tmp/quick" > /dev/null || exit 1
cp "$tmp/quick/rmsd.h5" "$tmp/no-trajectory.h5"
status=0
expect() {  # expect "message regex" command...
  local want="$1"; shift
  local out rc
  out=$("$@" 2>&1); rc=$?
  if ((rc == 0)) || ! grep -qE -- "$want" <<< "$out"; then
    echo "FAILED: $* -> exit $rc, output: $out (wanted a failure saying: $want)"
    status=1
  else
    echo "ok: $* -> $(tail -n 1 <<< "$out")"
  fi
}
expect "--threads: '0' is not a whole number of at least 1" "$bench" rmsd --file "$traj" --threads 1,0 --out "$tmp/x"
expect "--threads: '' is not a whole number" "$bench" synthetic --threads 1,,2 --out "$tmp/x"
expect "cannot write into the folder $tmp/a-file/out" "$bench" rmsd --file "$traj" --threads 1 --out "$tmp/a-file/out"
expect "cannot write into the folder $tmp/a-file/out" "$bench" synthetic --threads 1 --out "$tmp/a-file/out"
expect "no dataset '/particles/trajectory/position/value'" "$bench" rmsd --file "$tmp/no-trajectory.h5" --out "$tmp/x"
expect "no such file" "$bench" rmsd --file "$tmp/missing.h5" --out "$tmp/x"
expect "has shape \(.*\), not \(frames, atoms, 3\)" "$bench" rmsd --file "$traj" --dataset /particles/trajectory/position/step --out "$tmp/x"
expect "--layout: 'foo' is not one of" "$bench" generate --layout foo --out "$tmp/x.h5"
expect "--serial-fraction: must lie in \[0, 1\]" "$bench" synthetic --serial-fraction 1.5 --out "$tmp/x"
expect "unknown option --frobnicate" "$bench" rmsd --frobnicate 3
expect "unknown command 'fly'" "$bench" fly
expect "merge: no .*/nowhere/scaling.json" "$bench" merge --out "$tmp/m" "$tmp/nowhere"
expect "--seconds: must be positive and at most 86400" "$bench" synthetic --seconds 1e300 --out "$tmp/x"
# Reports of different runs are never merged: another workload, or the same workload on another file.
"$bench" synthetic --serial-fraction 0.1 --seconds 0.02 --threads 1 --repeats 1 --warmup 0 --out "$tmp/syn" > /dev/null || exit 1
mkdir -p "$tmp/other" && cp "$traj" "$tmp/other/"
"$bench" rmsd --file "$tmp/other/$(basename "$traj")" --threads 1 --repeats 1 --warmup 0 --out "$tmp/quick2" > /dev/null || exit 1
expect "merge: the reports measured different work and cannot be merged: $tmp/quick vs $tmp/syn differ in program: 'chunkwise-bench rmsd' vs 'chunkwise-bench synthetic'; workload: 'rmsd' vs 'synthetic'" \
  "$bench" merge --out "$tmp/m" "$tmp/quick" "$tmp/syn"
expect "merge: the reports measured different work.*differ in input.path: '.*' vs '$tmp/other/traj.h5'" "$bench" merge --out "$tmp/m" "$tmp/quick" "$tmp/quick2"
expect "/nonexistent/mpiexec not found" bash "$scale" --ranks 1,2 --mpiexec /nonexistent/mpiexec -- "$bench" rmsd --file "$traj" --out "$tmp/s"
expect "--ranks: '0' is not a rank count" bash "$scale" --ranks 0,2 -- "$bench" rmsd --file "$traj" --out "$tmp/s"
expect "needs --out DIR" bash "$scale" --ranks 1 -- "$bench" rmsd --file "$traj"
printf 'localhost slots=2\nno-such-host.invalid slots=2\n' > "$tmp/hosts"
expect "the hostfile $tmp/hosts names the host 'no-such-host.invalid', which this machine does not know" \
  bash "$scale" --ranks 1,2 --hostfile "$tmp/hosts" -- "$bench" rmsd --file "$traj" --out "$tmp/s"
expect "--host names the host 'nowhere.invalid'" bash "$scale" --ranks 1 --host localhost:1,nowhere.invalid:2 -- "$bench" rmsd --file "$traj" --out "$tmp/s"
expect "--hostfile: cannot read $tmp/missing-hosts" bash "$scale" --ranks 1 --hostfile "$tmp/missing-hosts" -- "$bench" rmsd --file "$traj" --out "$tmp/s"
# Inside a SLURM allocation of 2 tasks, 4 ranks are refused before anything runs (srun stands in).
mkdir -p "$tmp/fake-slurm" && printf '#!/bin/sh\necho "srun should not have run: $*" >&2; exit 1\n' > "$tmp/fake-slurm/srun" && chmod +x "$tmp/fake-slurm/srun"
expect "the SLURM allocation has 2 task\(s\) \(SLURM_NTASKS\); --ranks asks for 4" \
  env PATH="$tmp/fake-slurm:$PATH" SLURM_JOB_ID=1 SLURM_NTASKS=2 SLURM_MPI_TYPE=pmix bash "$scale" --ranks 1,4 -- "$bench" rmsd --file "$traj" --out "$tmp/s"
"$bench" synthetic --seconds 0.02 --threads 1,2 --repeats 1 --warmup 0 --out "$tmp/two" > /dev/null || exit 1
expect "the model needs measured points at three worker counts or more.*the reports hold 1, 2" "$bench" predict --from "$tmp/two"
expect "predict: no .*/nowhere/scaling.json" "$bench" predict --from "$tmp/nowhere"
help=$(bash "$scale" --help)
if grep -q 'Usage: scale-mpi.sh --ranks' <<< "$help" && ! grep -qE '^\s*(set|die|while|case)' <<< "$help"; then
  echo "ok: scale-mpi.sh --help is words"
else
  echo "FAILED: scale-mpi.sh --help: $help"; status=1
fi
exit $status
