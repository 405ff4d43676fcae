"""A dataset read whole by N h5py processes at once, each its contiguous share of the rows in
blocks of about --block-mib (whole chunks of rows), each process opening the file itself, as
h5py users read in parallel (h5py serialises threads). Prints "seconds S": from the moment all N
processes are ready to the last one's end, best of --repeats (the processes are started before).

    python3 h5py_read.py FILE.h5 --processes N [--dataset PATH] [--block-mib 4] [--repeats 3]
"""
import argparse
import multiprocessing
import time

import h5py
import numpy as np

POSITIONS = "/particles/trajectory/position/value"


def share(args):
    file, path, start, stop, step, ready, go = args
    ready.wait()
    go.wait()
    total = 0.0
    with h5py.File(file, "r") as f:
        d = f[path]
        for r in range(start, stop, step):
            block = d[r:min(r + step, stop)]
            total += float(block.reshape(-1)[0])
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--dataset", default=POSITIONS)
    p.add_argument("--block-mib", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    if a.processes < 1:
        raise SystemExit("h5py_read.py: --processes must be at least 1")
    with h5py.File(a.file, "r") as f:
        d = f[a.dataset]
        rows = d.shape[0]
        row_bytes = d.dtype.itemsize * int(np.prod(d.shape[1:]))
        chunk_rows = d.chunks[0] if d.chunks else 1
    step = max(1, (a.block_mib << 20) // max(1, row_bytes) // chunk_rows) * chunk_rows
    n = a.processes
    bounds = [rows * k // n for k in range(n + 1)]
    # Shares start on chunk rows, as chunkwise's blocks do.
    bounds = [min(rows, (b + chunk_rows - 1) // chunk_rows * chunk_rows) for b in bounds]
    best = None
    ctx = multiprocessing.get_context("fork")
    with ctx.Manager() as m, ctx.Pool(n) as pool:
        for r in range(a.repeats + 1):  # round 0 warms the page cache and the processes
            ready, go = m.Barrier(n + 1), m.Barrier(n + 1)
            jobs = pool.map_async(share, [(a.file, a.dataset, bounds[k], bounds[k + 1], step, ready, go)
                                          for k in range(n)])
            ready.wait()
            t0 = time.perf_counter()
            go.wait()
            jobs.get()
            t = time.perf_counter() - t0
            if r > 0:
                best = t if best is None else min(best, t)
    print("seconds %.6f" % best)


if __name__ == "__main__":
    main()
