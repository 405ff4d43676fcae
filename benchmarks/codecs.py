"""Every codec read in parallel (docs/performance.md, "Every codec"): a 200 x 50000 x 3 float32
trajectory (coordinates to 0.01, one frame per chunk, 120 MB) written by h5py with each of
Debian's HDF5 filter plugins (Zstandard, which Debian 12 has no plugin for, chunk by chunk with
python3-zstandard), then, for each file, `chunkwise-bench codecs` (the codec alone, HDF5's own
H5Dread loop, chunkwise at each thread count) and h5py reading the whole dataset through the
plugin in 1 process and in 2 processes (each half the frames), in one run.

    /usr/bin/python3 benchmarks/codecs.py --bench build/bench/benchmarks/chunkwise-bench --dir DIR \\
        [--threads 1,2] [--repeats 3] [--frames 200] [--atoms 50000]
"""
import argparse
import multiprocessing
import os
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
import h5py_codecs  # noqa: E402  (write_direct)

CODECS = [
    ("gzip+shuffle", dict(compression="gzip", compression_opts=1, shuffle=True)),
    ("lzf", dict(compression="lzf")),
    ("lz4", dict(compression=32004, compression_opts=(0,))),
    ("bzip2", dict(compression=307, compression_opts=(9,))),
    ("blosc-lz4", dict(compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 1))),
    ("blosc-zstd", dict(compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 5))),
    ("bitshuffle-lz4", dict(compression=32008, compression_opts=(0, 2))),
    ("zstd", None),
]


def trajectory(frames, atoms):
    rng = np.random.default_rng(7)
    walk = np.cumsum(rng.normal(0, 0.05, size=(frames, atoms, 3)), axis=0) + rng.uniform(0, 50, size=(atoms, 3))
    return np.round(walk, 2).astype(np.float32)


def make(folder, frames, atoms):
    data = trajectory(frames, atoms)
    files = []
    for name, kw in CODECS:
        path = os.path.join(folder, "codec-%s.h5" % name)
        if not os.path.exists(path):
            with h5py.File(path, "w") as f:
                if kw is None:
                    import zstandard
                    cctx = zstandard.ZstdCompressor(level=3, write_content_size=True)
                    h5py_codecs.write_direct(f, "/data", data, (1, atoms, 3), 32015, (3,),
                                             lambda b: cctx.compress(np.ascontiguousarray(b).tobytes()))
                else:
                    f.create_dataset("/data", data=data, chunks=(1, atoms, 3), **kw)
        files.append((name, path))
    return files


def h5py_read(args):
    path, lo, hi = args
    with h5py.File(path, "r") as f:
        return float(f["/data"][lo:hi].sum())


def h5py_time(path, processes, repeats):
    with h5py.File(path, "r") as f:
        frames = f["/data"].shape[0]
    parts = [(path, frames * i // processes, frames * (i + 1) // processes) for i in range(processes)]
    best = float("inf")
    with multiprocessing.Pool(processes) as pool:
        for r in range(repeats + 1):
            t0 = time.perf_counter()
            pool.map(h5py_read, parts)
            if r > 0:
                best = min(best, time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--atoms", type=int, default=50000)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    files = make(a.dir, a.frames, a.atoms)
    rows = []
    for name, path in files:
        out = subprocess.run([a.bench, "codecs", "--file", path, "--threads", a.threads, "--repeats", str(a.repeats)],
                             check=True, capture_output=True, text=True).stdout
        sys.stdout.write(out)
        cw = {}
        alone = None
        for line in out.splitlines():
            if line.startswith("decode alone"):
                alone = float(line.split()[-2])
            if line.startswith("chunkwise,"):
                n = int(line.split()[1])
                cw[n] = float(line.split("s  (")[0].split()[-1])
        try:
            py1 = h5py_time(path, 1, a.repeats)
            py2 = h5py_time(path, 2, a.repeats)
        except Exception:  # no plugin for h5py (Zstandard)
            py1 = py2 = None
        rows.append((name, alone, cw, py1, py2))
    print()
    print("%-16s %10s %10s %10s %8s %10s %12s %12s" % ("codec", "alone s", "cw 1 s", "cw 2 s", "S(2)", "1t/alone",
                                                     "h5py1/cw1", "h5py2p/cw2"))
    for name, alone, cw, py1, py2 in rows:
        s2 = cw[1] / cw[2] if 2 in cw else float("nan")
        print("%-16s %10.4f %10.4f %10.4f %8.2f %10.2f %12s %12s" % (
            name, alone, cw[1], cw.get(2, float("nan")), s2, cw[1] / alone,
            "-" if py1 is None else "%.2f" % (py1 / cw[1]), "-" if py2 is None else "%.2f" % (py2 / cw[2])))


if __name__ == "__main__":
    main()
