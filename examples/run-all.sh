#!/usr/bin/env bash
# The main job: builds the examples optimised and runs them on generated data, printing results
# and timings. Installs missing Debian packages first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/install-debian-deps.sh main

echo "=== building the examples and the benchmark suite, optimised (cmake --preset release: build/release) ==="
cmake --preset release >/dev/null
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT
# Progress every tenth of the way, naming what is being compiled (a first build takes minutes).
if ! cmake --build --preset release -j "$(nproc)" 2>&1 | tee "$build_log" |
    awk '/^\[ *[0-9]+%\] Building/ { p = substr($0, 2, index($0, "%") - 2) + 0
           if (p >= next_at) { n = split($NF, part, "/"); sub(/\.o$/, "", part[n]); printf "  %3d%% built, compiling %s\n", p, part[n]; fflush(); next_at = p + 10 } }'; then
  grep -E "error|Error" "$build_log" | head -n 30
  echo "the build failed (full log above)" >&2
  exit 1
fi
echo "  done: build/release"
bin=build/release/examples

echo "=== chunkwise-doctor: the HDF5, MPI, codecs and file system this machine really has ==="
build/release/benchmarks/chunkwise-doctor "${TMPDIR:-/tmp}" || echo "(the doctor names each problem above with its fix)"
echo

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
trap 'rm -rf "$many" "$build_log"' EXIT
"$bin/06-many-files" generate "$many" --files 2000 --broken 5
"$bin/06-many-files" run "$many" || echo "(exit status $?: some files failed, as expected)"
echo "--- second invocation: finished files come from the checkpoint ---"
"$bin/06-many-files" run "$many" 2>/dev/null || echo "(exit status $?)"
echo "--- the log's first lines ($(wc -l < "$many/run.log") in all) ---"
head -n 4 "$many/run.log"
echo
echo "=== 07-images: 4000 small binary records made by the workers, each packing its own into one HDF5 file (vlen uint8 + int16 labels), vs one file each ==="
"$bin/07-images" --images 4000
echo
echo "=== 08-trajectory-series: a trajectory in 20 files read as one dataset, only the selected atoms ==="
"$bin/08-trajectory-series" --frames 2000 --atoms 20000 --files 20
echo
echo "=== 09-mpi-hdf5: MPI + HDF5 end to end: 2 ranks read their blocks of one file, write_blocks writes one result, both ranks rechunk the file ==="
ex09=$(mktemp -d)
build/release/chunkwise-mpiexec 2 "$bin/09-mpi-hdf5" --file "$ex09/traj.h5" --out "$ex09/rmsd.h5" --frames 2000 --atoms 20000
rm -rf "$ex09"
echo
echo "=== 11-hdf5-to-zarr: HDF5 in, Zarr out: 2 ranks read their blocks of one file and stream per-frame results and the positions into Zarr stores as each block is done ==="
ex11=$(mktemp -d)
build/release/chunkwise-mpiexec 2 "$bin/11-hdf5-to-zarr" --file "$ex11/traj.h5" --out "$ex11" --frames 2000 --atoms 20000
echo "--- zarr-python reads what the ranks wrote ---"
/usr/bin/python3 examples/zarr_check.py "$ex11"
rm -rf "$ex11"
echo
echo "=== 10-combine: mergeable statistics on an H5MD trajectory (RMSF, distances, windowed MSD), checked against MDAnalysis ==="
ex10=$(mktemp -d)
build/release/benchmarks/chunkwise-bench generate --layout chunk1 --atoms 2000 --frames 400 --out "$ex10/traj.h5" > /dev/null
"$bin/10-combine" --file "$ex10/traj.h5" --out "$ex10/combine.h5" --bins 64 --max-lag 20
/usr/bin/python3 benchmarks/tests/combine_vs_mdanalysis.py "$ex10/traj.h5" "$ex10/combine.h5" 2>/dev/null
rm -rf "$ex10"
echo
echo "=== 12-products: per-frame and per-atom results written with units and dimension names to HDF5 and a Zarr group, frames appended, a region updated; xarray opens both ==="
ex12=$(mktemp -d)
"$bin/12-products" --frames 3000 --continued 1000 --atoms 2000 --ligand 100 --dir "$ex12"
/usr/bin/python3 examples/products_check.py "$ex12" --continued 1000 --ligand 100
rm -rf "$ex12"
echo
echo "=== scaling: RMSD per frame of an H5MD trajectory (the MDAnalysis H5MD study), threads, then MPI ranks ==="
bench=build/release/benchmarks/chunkwise-bench
results=build/release/scaling
rm -rf "$results"
mkdir -p "$results"
"$bench" generate --layout shgzip1 --atoms 20000 --frames 400 --out "$results/traj.h5"
echo "--- threads in one process (chunkwise-bench rmsd) ---"
"$bench" rmsd --file "$results/traj.h5" --threads 1,2 --repeats 3 --out "$results/threads"
echo "--- MPI ranks, one mpiexec per rank count (benchmarks/scale-mpi.sh) ---"
bash benchmarks/scale-mpi.sh --ranks 1,2 --launcher build/release/chunkwise-mpiexec -- \
  "$bench" rmsd --file "$results/traj.h5" --repeats 3 --out "$results/mpi" | sed -n '/=== merged/,$p'
echo "Reports (scaling.json, scaling.csv, speedup.png, phases.png): $results/threads and $results/mpi; see docs/scaling.md"

