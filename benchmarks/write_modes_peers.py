#!/usr/bin/python3
"""The peers of `bench_write_modes`: what writing into an existing array costs h5py and zarr-python against
writing a new one, on the same data, in the same cases and on the same file system.

    /usr/bin/python3 benchmarks/write_modes_peers.py [--dir DIR] [--rows 4096] [--cols 1024] [--chunk-rows 64]
        [--repeats 5] [--settle]

The values are bench_write_modes' (sin(0.001 (i mod 100000)) as float32, i the flat index). The stores:
  h5py          deflate 1 + shuffle, chunks of --chunk-rows rows, axis 0 unlimited (maxshape None)
  zarr-python   Zarr v2, Zstandard level 3 (numcodecs), the same chunks, one process
The cases, taking turns, each the median of --repeats: a create of N rows into a new file or store (a new name
each turn, the ones before kept until the store's cases end, as in bench_write_modes); an update of
N rows at row 0 (aligned to the chunks) and at row N/2 + 7 of an array of 8N rows (a region that starts and ends
inside chunks); an append of N rows to an array of N rows and to one of 8N rows. Each write is timed from opening
the file or store to its closing. --settle: sync() before each write, and the page cache dropped where the
process may (root), as in bench_write_modes. Prints one line per store: the create's seconds, then each case's
seconds and its ratio to the create.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np


def values(rows, cols):
    i = np.arange(rows * cols, dtype=np.int64) % 100000
    return np.sin(np.float32(0.001) * i.astype(np.float32)).astype(np.float32).reshape(rows, cols)


def drop_page_cache():
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1")
        return True
    except OSError:
        return False


def seconds(f, settle, prepare=None):
    if prepare:
        prepare()
    if settle:
        os.sync()
        drop_page_cache()
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


def h5py_ops(chunk_rows):
    import h5py

    def create(path, a):
        with h5py.File(path, "w-") as f:
            f.create_dataset("x", data=a, chunks=(chunk_rows, a.shape[1]), compression="gzip",
                             compression_opts=1, shuffle=True, maxshape=(None, a.shape[1]))

    def update(path, a, first):
        with h5py.File(path, "r+") as f:
            f["x"][first:first + a.shape[0]] = a

    def append(path, a):
        with h5py.File(path, "r+") as f:
            d = f["x"]
            n = d.shape[0]
            d.resize(n + a.shape[0], axis=0)
            d[n:] = a

    return "h5py deflate 1 + shuffle", create, update, append


def zarr_ops(chunk_rows):
    import numcodecs
    import zarr

    def create(path, a):
        z = zarr.open(path, mode="w-", shape=a.shape, chunks=(chunk_rows, a.shape[1]), dtype=a.dtype,
                      compressor=numcodecs.Zstd(level=3), zarr_version=2)
        z[:] = a

    def update(path, a, first):
        zarr.open(path, mode="r+")[first:first + a.shape[0]] = a

    def append(path, a):
        zarr.open(path, mode="r+").append(a)

    return "zarr-python v2 zstd", create, update, append


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "chunkwise-write-modes-peers"))
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=1024)
    ap.add_argument("--chunk-rows", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--settle", action="store_true")
    args = ap.parse_args()
    if args.rows < 1 or args.cols < 1 or args.chunk_rows < 1 or args.repeats < 1:
        sys.exit("write_modes_peers.py: --rows, --cols, --chunk-rows and --repeats must be at least 1")
    rows, cols, chunk_rows = args.rows, args.cols, min(args.chunk_rows, args.rows)
    remove(args.dir)
    os.makedirs(args.dir)
    a = values(rows, cols)
    big = np.tile(a, (8, 1))
    offset = rows // 2 + 7
    how = ""
    if args.settle:
        how = ", each after sync() and the page cache dropped" if drop_page_cache() else \
              ", each after sync() (the page cache not dropped: not root)"
    print(f"{rows} x {cols} float32 ({a.nbytes / 1e6:.1f} MB) per write, chunks of {chunk_rows} rows, "
          f"median of {args.repeats}, turns alternating{how}")
    print(f"{'store':<24} {'create s':>9} {'update aligned':>16} {'update region':>16} {'append to N':>16} "
          f"{'append to 8N':>16}")
    for label, create, update, append in (h5py_ops(chunk_rows), zarr_ops(chunk_rows)):
        p = {k: os.path.join(args.dir, k) for k in ("fresh", "same", "twice", "small", "large")}
        create(p["same"], a)
        create(p["twice"], big)
        create(p["small"], a)
        create(p["large"], big)
        t = {k: [] for k in ("create", "aligned", "region", "small", "large")}
        for turn in range(args.repeats):
            # each create into a name of its own, as bench_write_modes does
            fresh = os.path.join(p["fresh"], str(turn))
            t["create"].append(seconds(lambda: create(fresh, a), args.settle,
                                       lambda: os.makedirs(p["fresh"], exist_ok=True)))
            t["aligned"].append(seconds(lambda: update(p["same"], a, 0), args.settle))
            t["region"].append(seconds(lambda: update(p["twice"], a, offset), args.settle))
            t["small"].append(seconds(lambda: append(p["small"], a), args.settle))
            t["large"].append(seconds(lambda: append(p["large"], a), args.settle))
        c = statistics.median(t["create"])
        cell = {k: f"{statistics.median(v):.3f} s {statistics.median(v) / c:.2f}x" for k, v in t.items()}
        print(f"{label:<24} {c:9.3f} {cell['aligned']:>16} {cell['region']:>16} {cell['small']:>16} "
              f"{cell['large']:>16}", flush=True)
        for path in p.values():
            remove(path)
    remove(args.dir)


if __name__ == "__main__":
    main()
