#!/usr/bin/env bash
# The main job: builds the examples optimised and runs them on generated data, printing results
# and timings. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install-debian-deps.sh main

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" >/dev/null
bin=build/release/examples

echo "=== 01-blocks: partition, map_blocks, gather ==="
"$bin/01-blocks"
echo
echo "=== 02-trajectory-rmsd: RMSD per frame of a generated trajectory, serial vs threads ==="
"$bin/02-trajectory-rmsd" --frames 20000 --atoms 2000 --blocks 64
echo
echo "=== 03-mpi-rmsd: the same across 2 MPI ranks (mpi_policy, hybrid_policy), gathered on rank 0 ==="
# build/release/chunkwise-mpiexec is mpiexec with the flags chunkwise's CMake chose (root, oversubscribe).
build/release/chunkwise-mpiexec 2 "$bin/03-mpi-rmsd" --frames 20000 --atoms 2000 --blocks 2 --threads 1
echo
echo "=== 05-hdf5-trajectory: RMSD per frame from an HDF5 file with h5py's automatic chunks, then rechunked ==="
"$bin/05-hdf5-trajectory" --frames 20000 --atoms 1000
echo
echo "=== 06-many-files: 2000 input files, 5 broken: collect failures, checkpoint, log, progress; then resume ==="
many=$(mktemp -d)
trap 'rm -rf "$many"' EXIT
"$bin/06-many-files" generate "$many" --files 2000 --broken 5
"$bin/06-many-files" run "$many" || echo "(exit status $?: some files failed, as expected)"
echo "--- second invocation: finished files come from the checkpoint ---"
"$bin/06-many-files" run "$many" 2>/dev/null || echo "(exit status $?)"
echo "--- the log's first lines ($(wc -l < "$many/run.log") in all) ---"
head -n 4 "$many/run.log"
