"""Zarr read and write in parallel (docs/performance.md, "Zarr"): the trajectory of the HDF5 codec
table (benchmarks/codecs.py: 200 x 50000 x 3 float32, one frame per chunk, 120 MB) written by
zarr-python as Zarr v2 stores with each codec, then, for each store, `chunkwise-bench zarr` (pread
floor, decode alone, chunkwise at each thread count), zarr-python reading the whole array in 1
process (numcodecs' Blosc threads on) and in 2 processes (half the frames each), and
dask.array.from_zarr summed with dask's process scheduler of 1 and 2 workers, in one run; then
writes from 1 and 2 threads and from 1 and 2 MPI ranks (`chunkwise-bench zarr-write`).

    /usr/bin/python3 benchmarks/zarr_stores.py --bench build/bench/benchmarks/chunkwise-bench --dir DIR \\
        [--threads 1,2] [--repeats 3] [--frames 200] [--atoms 50000] [--mpiexec build/bench/chunkwise-mpiexec]
"""
import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time

import numpy as np
import zarr
from numcodecs import BZ2, LZ4, Blosc, GZip, Shuffle, Zstd
import numcodecs.blosc

HERE = os.path.dirname(os.path.abspath(__file__))

def trajectory(frames, atoms):
    """The HDF5 codec table's data (benchmarks/codecs.py, loaded by path: its name is the standard
    library's too)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("hdf5_codecs_bench", os.path.join(HERE, "codecs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.trajectory(frames, atoms)


CODECS = [
    ("none", None, None),
    ("gzip+shuffle", GZip(level=1), [Shuffle(elementsize=4)]),
    ("zstd", Zstd(level=1), None),
    ("lz4", LZ4(), None),
    ("blosc-lz4", Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE), None),
    ("blosc-zstd", Blosc(cname="zstd", clevel=5, shuffle=Blosc.SHUFFLE), None),
    ("bz2", BZ2(level=1), None),
]


def make(folder, frames, atoms):
    data = None
    stores = []
    for name, comp, filters in CODECS:
        path = os.path.join(folder, "zarr-%s" % name)
        if not os.path.exists(os.path.join(path, ".zarray")):
            if data is None:
                data = trajectory(frames, atoms)
            a = zarr.open(path, mode="w", shape=data.shape, chunks=(1, atoms, 3), dtype="<f4", compressor=comp,
                          filters=filters)
            a[...] = data
        stores.append((name, path))
    return stores


def read_rows(args):
    path, lo, hi = args
    return float(zarr.open(path, mode="r")[lo:hi].sum())


def best(f, repeats):
    f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bench", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--frames", type=int, default=200)
    p.add_argument("--atoms", type=int, default=50000)
    p.add_argument("--mpiexec", default="")
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    numcodecs.blosc.use_threads = True
    import dask
    import dask.array as da

    rows = []
    for name, path in make(a.dir, a.frames, a.atoms):
        out = subprocess.run([a.bench, "zarr", "--store", path, "--threads", a.threads, "--repeats", str(a.repeats)],
                             check=True, capture_output=True, text=True).stdout
        print(out, end="")
        floor = float(re.search(r"pread floor.*?([0-9.]+) s", out).group(1))
        alone = float(re.search(r"decode alone.*?([0-9.]+) s", out).group(1))
        cw = {int(n): float(t) for n, t in re.findall(r"chunkwise, (\d+) threads?\s+([0-9.]+) s", out)}
        frames = a.frames
        zp1 = best(lambda: zarr.open(path, mode="r")[...], a.repeats)
        with multiprocessing.Pool(2) as pool:
            zp2 = best(lambda: pool.map(read_rows, [(path, 0, frames // 2), (path, frames // 2, frames)]), a.repeats)
        dk = {}
        for n in (1, 2):
            with dask.config.set(scheduler="processes", num_workers=n):
                dk[n] = best(lambda: da.from_zarr(path).sum().compute(), a.repeats)
        rows.append((name, floor, alone, cw, zp1, zp2, dk))
        print(f"zarr-python {zarr.__version__}: 1 process {zp1:.4f} s, 2 processes {zp2:.4f} s; "
              f"dask.array.from_zarr(...).sum(), processes: 1 worker {dk[1]:.4f} s, 2 workers {dk[2]:.4f} s\n")
    print("| codec | pread floor | decode alone | chunkwise 1 thread (x of floor) | chunkwise 2 threads | S(2) | "
          "zarr-python 1 / 2 processes | dask 1 / 2 workers | zarr-python 2 proc / chunkwise 2 thr |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, floor, alone, cw, zp1, zp2, dk in rows:
        print(f"| {name} | {floor:.4f} | {alone:.4f} | {cw[1]:.4f} ({cw[1] / (floor + alone):.2f}x) | {cw[2]:.4f} | "
              f"{cw[1] / cw[2]:.2f} | {zp1:.4f} / {zp2:.4f} | {dk[1]:.4f} / {dk[2]:.4f} | {zp2 / cw[2]:.1f}x |")
    # Writes: the zstd store rewritten from 1 and 2 threads, and from 1 and 2 ranks.
    src = dict(make(a.dir, a.frames, a.atoms))["zstd"]
    out = subprocess.run([a.bench, "zarr-write", "--store", src, "--out", os.path.join(a.dir, "written"), "--threads",
                          a.threads, "--repeats", str(a.repeats), "--codec", "zstd"],
                         check=True, capture_output=True, text=True).stdout
    print(out, end="")
    if a.mpiexec:
        for n in (1, 2):
            out = subprocess.run([a.mpiexec, str(n), a.bench, "zarr-write", "--store", src, "--out",
                                  os.path.join(a.dir, "written-mpi"), "--repeats", str(a.repeats), "--codec", "zstd",
                                  "--mode", "mpi"], check=True, capture_output=True, text=True).stdout
            print(out, end="")


if __name__ == "__main__":
    main()
