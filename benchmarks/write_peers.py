#!/usr/bin/python3
"""The peers of `chunkwise-bench write`, on the same data, for docs/performance.md's write table.

    /usr/bin/python3 benchmarks/write_peers.py --dir DIR [--shape 2000x50000] [--chunk 10x50000] [--workers 2]
        [--repeats 3] [--block-mib 16]

The values are those `chunkwise-bench write` writes: a pool of two blocks' rows (100 sin(0.01 r + 0.002 c) plus
a little noise, as float32), row r of the array being row r mod (pool rows). Each peer writes the whole array from
that pool, best of --repeats, each write into a new file or store:
  h5py, 1 process         deflate (level 6) + shuffle, the same chunks (h5py writes through HDF5's filters)
  h5py, N processes       the same, through MPI-IO (driver "mpio", collective writes, which HDF5 needs to
                          compress in parallel): run under mpiexec where Debian's python3-h5py-mpi and
                          python3-mpi4py are installed, each rank writing its share of the rows in blocks
  zarr-python, 1 and N    Zarr v2, Zstandard level 3 (numcodecs), the same chunks; N processes each writing
                          whole blocks of its own (multiprocessing)
  dask.array.to_zarr      the same store from a dask array of the blocks, N threads (numcodecs releases the GIL)
Prints one line per peer: seconds.
"""
import argparse
import multiprocessing
import os
import shutil
import sys
import time

import numpy as np


def pool_of(rows, cols, block_rows):
    pool_rows = min(rows, 2 * block_rows)
    r = np.arange(pool_rows, dtype=np.uint64)[:, None]
    c = np.arange(cols, dtype=np.uint64)[None, :]
    h = ((r * np.uint64(2654435761)) ^ (c * np.uint64(40503))) & np.uint64(0xFFFFFFFF)
    v = 100.0 * np.sin(0.01 * r.astype(np.float64) + 0.002 * c.astype(np.float64)) + (h % 64).astype(np.float64) / 256.0
    return v.astype(np.float32)


def blocks_of(rows, block_rows):
    return [(r, min(rows, r + block_rows)) for r in range(0, rows, block_rows)]


def best(repeats, prepare, run):
    t = float("inf")
    for _ in range(repeats + 1):  # the first round untimed
        prepare()
        t0 = time.perf_counter()
        run()
        t = min(t, time.perf_counter() - t0) if _ > 0 else t
    return t


def clear(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.exists(path):
        os.remove(path)


_state = {}


def _zarr_worker(args):
    store, lo, hi, pool_rows = args
    import zarr
    z = zarr.open(store, mode="r+")
    pool = _state["pool"]
    for (a, b) in _state["blocks"][lo:hi]:
        z[a:b] = pool[a % pool_rows:a % pool_rows + (b - a)]
    return 0


def h5py_mpi_child(a):
    """One rank of the h5py MPI-IO peer (started by main under mpiexec): prints the best time on rank 0."""
    from mpi4py import MPI
    import h5py
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    rows, cols = (int(x) for x in a.shape.split("x"))
    crow, ccol = (int(x) for x in a.chunk.split("x"))
    block_rows = max((a.block_mib << 20) // (cols * 4) // crow, 1) * crow
    pool = pool_of(rows, cols, block_rows)
    pool_rows = pool.shape[0]
    # Each rank's share: every size-th block (whole chunk rows); every rank makes the same number of collective calls.
    mine = blocks_of(rows, block_rows)[rank::size]
    rounds = comm.allreduce(len(mine), op=MPI.MAX)
    path = os.path.join(a.dir, "peer-mpi.h5")
    collective = h5py.h5p.create(h5py.h5p.DATASET_XFER)  # for the empty writes, as `d.collective` sets for the rest
    collective.set_dxpl_mpio(h5py.h5fd.MPIO_COLLECTIVE)
    best_t = float("inf")
    for turn in range(a.repeats + 1):  # the first round untimed
        if rank == 0:
            clear(path)
        comm.Barrier()
        t0 = time.perf_counter()
        with h5py.File(path, "w", driver="mpio", comm=comm) as f:
            d = f.create_dataset("data", (rows, cols), dtype="f4", chunks=(crow, ccol), compression="gzip",
                                 compression_opts=6, shuffle=True)
            with d.collective:
                for k in range(rounds):
                    if k < len(mine):
                        lo, hi = mine[k]
                        d[lo:hi] = pool[lo % pool_rows:lo % pool_rows + (hi - lo)]
                    else:  # no rows left here: an empty selection, so that the collective call is made
                        fs = d.id.get_space()
                        fs.select_none()
                        ms = h5py.h5s.create_simple((1,))
                        ms.select_none()
                        d.id.write(ms, fs, np.zeros(1, dtype="f4"), dxpl=collective)
        comm.Barrier()
        t = time.perf_counter() - t0
        if turn > 0:
            best_t = min(best_t, t)
    if rank == 0:
        print(f"{best_t:.6f}", flush=True)
    return 0


def h5py_mpi_peer(a, n):
    """The h5py MPI-IO peer's best time, or why it did not run."""
    import subprocess
    # (Debian's h5py loads its MPI build under mpiexec, or where H5PY_ALWAYS_USE_MPI is set.)
    probe = subprocess.run([sys.executable, "-c", "import sys, mpi4py, h5py; sys.exit(0 if h5py.get_config().mpi else 1)"],
                           capture_output=True, env=dict(os.environ, H5PY_ALWAYS_USE_MPI="1"))
    if probe.returncode != 0:
        return None, "not run: h5py's MPI build is not installed (Debian: python3-h5py-mpi, python3-mpi4py)"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpiexec", "--oversubscribe", "-n", str(n), sys.executable, os.path.abspath(__file__), "--h5py-mpi-child",
           "--dir", a.dir, "--shape", a.shape, "--chunk", a.chunk, "--repeats", str(a.repeats),
           "--block-mib", str(a.block_mib)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"failed (exit {r.returncode}): {r.stderr.strip()[-400:]}"
    return float(r.stdout.strip().splitlines()[-1]), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--shape", default="2000x50000")
    ap.add_argument("--chunk", default="10x50000")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--block-mib", type=int, default=16)
    ap.add_argument("--h5py-mpi-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.h5py_mpi_child:
        return h5py_mpi_child(a)
    rows, cols = (int(x) for x in a.shape.split("x"))
    crow, ccol = (int(x) for x in a.chunk.split("x"))
    block_rows = max((a.block_mib << 20) // (cols * 4) // crow, 1) * crow
    pool = pool_of(rows, cols, block_rows)
    pool_rows = pool.shape[0]
    blocks = blocks_of(rows, block_rows)
    os.makedirs(a.dir, exist_ok=True)
    import h5py
    import numcodecs
    import zarr
    import dask.array as da

    h5 = os.path.join(a.dir, "peer.h5")

    def h5py_write():
        with h5py.File(h5, "w") as f:
            d = f.create_dataset("data", (rows, cols), dtype="f4", chunks=(crow, ccol), compression="gzip",
                                 compression_opts=6, shuffle=True)
            for (lo, hi) in blocks:
                d[lo:hi] = pool[lo % pool_rows:lo % pool_rows + (hi - lo)]

    print(f"# {rows}x{cols} float32, chunks {crow}x{ccol}, blocks of {block_rows} rows; best of {a.repeats}; "
          f"h5py {h5py.__version__} (HDF5 {h5py.version.hdf5_version}), zarr-python {zarr.__version__}, "
          f"numcodecs {numcodecs.__version__}, dask {__import__('dask').__version__}", flush=True)
    t = best(a.repeats, lambda: clear(h5), h5py_write)
    print(f"h5py, 1 process, deflate 6 + shuffle: {t:.4f} s", flush=True)
    t, why = h5py_mpi_peer(a, a.workers)
    print(f"h5py, {a.workers} processes (MPI-IO, collective), deflate 6 + shuffle: " +
          (f"{t:.4f} s" if t is not None else why), flush=True)

    store = os.path.join(a.dir, "peer.zarr")
    comp = numcodecs.Zstd(level=3)

    def zarr_create():
        clear(store)
        zarr.open(store, mode="w", shape=(rows, cols), chunks=(crow, ccol), dtype="f4", compressor=comp)

    _state["pool"], _state["blocks"] = pool, blocks
    t = best(a.repeats, zarr_create, lambda: _zarr_worker((store, 0, len(blocks), pool_rows)))
    print(f"zarr-python, 1 process, Zstandard 3: {t:.4f} s", flush=True)
    n = a.workers
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(n) as workers:
        parts = [(store, k * len(blocks) // n, (k + 1) * len(blocks) // n, pool_rows) for k in range(n)]
        t = best(a.repeats, zarr_create, lambda: workers.map(_zarr_worker, parts))
    print(f"zarr-python, {n} processes, Zstandard 3: {t:.4f} s", flush=True)

    import dask
    arr = da.concatenate([da.from_array(pool[lo % pool_rows:lo % pool_rows + (hi - lo)], chunks=(crow, ccol))
                          for (lo, hi) in blocks])

    def dask_write():
        with dask.config.set(scheduler="threads", num_workers=n):
            arr.to_zarr(store, overwrite=True, compressor=comp)

    t = best(a.repeats, lambda: clear(store), dask_write)
    print(f"dask.array.to_zarr, {n} threads, Zstandard 3: {t:.4f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
