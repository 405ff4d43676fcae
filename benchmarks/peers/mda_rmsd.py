"""RMSD per frame to frame 0 after superposition, the MDAnalysis H5MD study's way.

Serially, or under mpiexec with mpi4py (--mpi): the frames split into balanced slices, one per
rank, each rank reading its frames with MDAnalysis' H5MDReader, the results gathered on rank 0
with Gatherv. Prints "seconds S" (the slowest rank, best of --repeats) on rank 0.

    python3 mda_rmsd.py FILE.h5 [--every 200] [--repeats 1] [--mpi]
"""
import argparse
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
from MDAnalysis.analysis import rms  # noqa: E402
from MDAnalysis.coordinates.H5MD import H5MDReader  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--every", type=int, default=200)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--mpi", action="store_true")
    a = p.parse_args()
    rank, size, comm = 0, 1, None
    if a.mpi:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        rank, size = comm.Get_rank(), comm.Get_size()
    reader = H5MDReader(a.file)
    n = reader.n_frames
    sel = np.arange(0, reader.n_atoms, a.every)
    ref = reader[0].positions[sel].astype(np.float64)
    # balanced slices, as the study's make_balanced_slices: sizes differ by at most one
    bounds = [len(s) for s in np.array_split(np.arange(n), size)]
    start = sum(bounds[:rank])
    stop = start + bounds[rank]
    best = None
    for _ in range(a.repeats):
        if comm is not None:
            comm.Barrier()
        t0 = time.perf_counter()
        out = np.empty(stop - start)
        for i, ts in enumerate(reader[start:stop]):
            out[i] = rms.rmsd(ts.positions[sel].astype(np.float64), ref, center=True, superposition=True)
        if comm is not None:
            result = np.empty(n) if rank == 0 else None
            comm.Gatherv(out, (result, bounds) if rank == 0 else None, root=0)
            elapsed = comm.reduce(time.perf_counter() - t0, op=MPI.MAX, root=0)
        else:
            elapsed = time.perf_counter() - t0
        if rank == 0:
            best = elapsed if best is None else min(best, elapsed)
    if rank == 0:
        print(f"seconds {best:.6f}")


if __name__ == "__main__":
    main()
