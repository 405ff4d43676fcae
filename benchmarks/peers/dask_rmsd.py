"""RMSD per frame to frame 0 after superposition with dask.array over h5py, as a dask user
would write it: a dask array of frame blocks read by h5py (each task opens the file itself),
map_blocks computing the RMSD of each frame with MDAnalysis' QCP, the processes scheduler with N
workers (h5py serialises threads). Prints "seconds S" (best of --repeats).

    python3 dask_rmsd.py FILE.h5 --workers N [--every 200] [--block-mib 8] [--repeats 1]
"""
import argparse
import time
import warnings

import numpy as np

warnings.filterwarnings("ignore")
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import h5py  # noqa: E402
from MDAnalysis.analysis import rms  # noqa: E402

PATH = "/particles/trajectory/position/value"


def read_block(file, start, stop):
    with h5py.File(file, "r") as f:
        return f[PATH][start:stop]


def rmsd_block(block, sel, ref):
    return np.array([rms.rmsd(frame[sel].astype(np.float64), ref, center=True, superposition=True) for frame in block])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--every", type=int, default=200)
    p.add_argument("--block-mib", type=int, default=8)
    p.add_argument("--repeats", type=int, default=1)
    a = p.parse_args()
    with h5py.File(a.file, "r") as f:
        n, atoms, _ = f[PATH].shape
        first = f[PATH][0]
    sel = np.arange(0, atoms, a.every)
    ref = first[sel].astype(np.float64)
    per_block = max(1, (a.block_mib << 20) // (atoms * 12))
    parts = [da.from_delayed(dask.delayed(read_block)(a.file, s, min(s + per_block, n)),
                             shape=(min(s + per_block, n) - s, atoms, 3), dtype=np.float32)
             for s in range(0, n, per_block)]
    frames = da.concatenate(parts, axis=0)
    result = frames.map_blocks(rmsd_block, sel, ref, drop_axis=[1, 2], dtype=np.float64)
    best = None
    with dask.config.set(scheduler="processes", num_workers=a.workers):
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            out = result.compute()
            elapsed = time.perf_counter() - t0
            best = elapsed if best is None else min(best, elapsed)
    assert out.shape == (n,)
    print(f"seconds {best:.6f}")


if __name__ == "__main__":
    main()
