"""Files for test_hdf5_codecs.cpp: one dataset per codec and setting, written by h5py through
Debian's HDF5 filter plugins (LZ4, bzip2, Blosc with each of its codecs and shuffles,
bitshuffle, LZF, Fletcher-32), and, where Debian 12 has no plugin (Zstandard, bitshuffle with
Zstandard inside), chunk by chunk with write_direct_chunk: the bytes made here with
python3-zstandard and bitshuffle's own transpose. Every dataset has a twin "<name>.expect"
stored without filters, holding its values, for the filters HDF5 here cannot decode.

  python3 h5py_codecs.py write DIR          # DIR/codecs.h5 and the list DIR/codecs.txt
  python3 h5py_codecs.py sweep DIR          # DIR/sweep.h5 and DIR/sweep.txt: every plugin's parameters
  python3 h5py_codecs.py zstd-chunk IN OUT  # IN's bytes as one Zstandard frame (stating its size)
  python3 h5py_codecs.py dump FILE PATH OUT [TYPE]  # h5py's values of FILE:PATH (through the plugins), as
                                                   # TYPE's bytes (numpy's name; float64 by default)
"""
import os
import struct
import sys

import h5py
import numpy as np


def values(shape, dtype, seed):
    """Trajectory-like values: coordinates to 0.01 (floats), or small steps (integers)."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        walk = np.cumsum(rng.normal(0, 0.05, size=shape), axis=0) + rng.uniform(0, 50, size=shape[1:])
        return np.round(walk, 2).astype(dtype)
    walk = np.cumsum(rng.integers(-3, 4, size=shape), axis=0)
    return walk.astype(dtype)


def bitshuffle_zstd_chunk(arr, block):
    """The bitshuffle filter's chunk with Zstandard inside (compression 3), made here: header (BE
    uint64 bytes, BE uint32 block bytes), then per block BE uint32 size + a Zstandard frame of the
    bit-transposed block; the elements past the last multiple of 8 as they are."""
    import bitshuffle
    import zstandard
    flat = np.ascontiguousarray(arr).reshape(-1)
    elem = flat.dtype.itemsize
    n = flat.size
    out = [struct.pack(">QI", n * elem, block * elem)]
    done = 0
    cctx = zstandard.ZstdCompressor(level=3, write_content_size=True)

    def one(count):
        nonlocal done
        part = flat[done:done + count]
        shuffled = bitshuffle.bitshuffle(part, block_size=count).tobytes()
        frame = cctx.compress(shuffled)
        out.append(struct.pack(">I", len(frame)) + frame)
        done += count

    for _ in range(n // block):
        one(block)
    last = n % block - (n % block) % 8
    if last:
        one(last)
    out.append(flat[done:].tobytes())
    return b"".join(out)


def write_direct(f, name, data, chunks, filter_id, opts, encode):
    """A dataset whose chunks are written as `encode` makes them, declaring `filter_id`."""
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_filter(filter_id, h5py.h5z.FLAG_OPTIONAL, opts)
    space = h5py.h5s.create_simple(data.shape)
    tid = h5py.h5t.py_create(data.dtype)
    dsid = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
    d = h5py.Dataset(dsid)
    grid = [range(0, s, c) for s, c in zip(data.shape, chunks)]
    import itertools
    for start in itertools.product(*grid):
        # Whole chunks (edge chunks padded with zeros, as HDF5 stores them).
        block = np.zeros(chunks, dtype=data.dtype)
        src = tuple(slice(s, min(s + c, n)) for s, c, n in zip(start, chunks, data.shape))
        block[tuple(slice(0, x.stop - x.start) for x in src)] = data[src]
        d.id.write_direct_chunk(start, encode(block))
    return d


def write(folder):
    import zstandard
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "codecs.h5")
    names = []
    with h5py.File(path, "w") as f:
        def add(name, data, **kw):
            f.create_dataset(name, data=data, **kw)
            f.create_dataset(name + ".expect", data=data)
            names.append(name)

        traj = values((24, 500, 3), np.float32, 1)
        odd = values((19, 61, 3), np.float32, 2)  # partial edge chunks, element counts not multiples of 8
        i16 = values((30, 77), np.int16, 3)
        f64 = values((16, 250), np.float64, 4)
        add("/lzf", traj, chunks=(1, 500, 3), compression="lzf")
        add("/lzf_shuffle", odd, chunks=(4, 61, 3), compression="lzf", shuffle=True)
        add("/lz4", traj, chunks=(1, 500, 3), compression=32004, compression_opts=(0,))
        add("/lz4_blocks", traj, chunks=(4, 500, 3), compression=32004, compression_opts=(1000,))
        add("/lz4_shuffle_fletcher", odd, chunks=(4, 61, 3), compression=32004, compression_opts=(0,),
            shuffle=True, fletcher32=True)
        add("/bzip2", traj, chunks=(2, 500, 3), compression=307, compression_opts=(9,))
        add("/bzip2_i16", i16, chunks=(7, 77), compression=307, compression_opts=(1,))
        for code, codec in ((0, "blosclz"), (1, "lz4"), (2, "lz4hc"), (4, "zlib"), (5, "zstd")):
            for shuffle in (0, 1, 2):
                add("/blosc_%s_%d" % (codec, shuffle), traj, chunks=(2, 500, 3), compression=32001,
                    compression_opts=(0, 0, 0, 0, 5, shuffle, code))
        add("/blosc_f64", f64, chunks=(5, 250), compression=32001, compression_opts=(0, 0, 0, 0, 9, 2, 1))
        add("/bitshuffle", traj, chunks=(1, 500, 3), compression=32008, compression_opts=(0, 0))
        add("/bitshuffle_lz4", traj, chunks=(2, 500, 3), compression=32008, compression_opts=(0, 2))
        add("/bitshuffle_lz4_blocks", odd, chunks=(4, 61, 3), compression=32008, compression_opts=(64, 2))
        add("/bitshuffle_i16", i16, chunks=(7, 77), compression=32008, compression_opts=(0, 2))
        add("/bitshuffle_f64", f64, chunks=(5, 250), compression=32008, compression_opts=(0, 2))
        add("/fletcher32", odd, chunks=(4, 61, 3), fletcher32=True)
        add("/fletcher32_gzip", traj, chunks=(3, 500, 3), compression="gzip", fletcher32=True, shuffle=True)
        # No plugin in Debian 12: chunks made here.
        cctx = zstandard.ZstdCompressor(level=3, write_content_size=True)
        for name, data, chunks in (("/zstd", traj, (1, 500, 3)), ("/zstd_odd", odd, (4, 61, 3))):
            write_direct(f, name, data, chunks, 32015, (3,), lambda b: cctx.compress(np.ascontiguousarray(b).tobytes()))
            f.create_dataset(name + ".expect", data=data)
            names.append(name)
        for name, data, chunks, block in (("/bitshuffle_zstd", traj, (2, 500, 3), 256),
                                          ("/bitshuffle_zstd_odd", odd, (4, 61, 3), 64)):
            # (the plugin puts its version and the element size before these: 0, 3, elem, block, 3, 3)
            write_direct(f, name, data, chunks, 32008, (block, 3, 3),
                         lambda b, block=block: bitshuffle_zstd_chunk(b, block))
            f.create_dataset(name + ".expect", data=data)
            names.append(name)
    with open(os.path.join(folder, "codecs.txt"), "w") as out:
        out.write("\n".join(names) + "\n")


# ---- the parameter sweep -------------------------------------------------------------------

SWEEP_TYPES = {"u8": np.uint8, "i16": np.int16, "f32": np.float32, "f64": np.float64}


def sweep_values(n, kind, tname):
    """The values of a sweep dataset: element i of kind "r" (scrambled: what compresses worst) or
    "z" (runs: what compresses best), exactly as test_hdf5_codecs.cpp computes them."""
    i = np.arange(n, dtype=np.uint64)
    if kind == "r":
        h = ((i * np.uint64(2654435761) + np.uint64(12345)) % np.uint64(1 << 32)) >> np.uint64(8)
    else:
        h = (i // np.uint64(97)) % np.uint64(5)
    if tname == "u8":
        return (h % np.uint64(256)).astype(np.uint8)
    if tname == "i16":
        return ((h % np.uint64(65536)).astype(np.int64) - 32768).astype(np.int16)
    if tname == "f32":
        return ((h % np.uint64(100000)).astype(np.float64) / 8.0 - 5000.0).astype(np.float32)
    return (h % np.uint64(1000000007)).astype(np.float64) / 16.0


def sweep(folder):
    """One 1-d dataset per setting: every parameter of every Debian plugin over its range (LZ4
    block sizes, bitshuffle block sizes with and without LZ4, Blosc's levels, shuffles and
    compressors, bzip2's and deflate's levels, LZF, Fletcher-32), on chunks of 1 byte to 4 MiB,
    with data that compresses worst and best. Named "/<setting>/<type>_<chunk bytes>_<kind>_<n>"."""
    os.makedirs(folder, exist_ok=True)
    names = []
    with h5py.File(os.path.join(folder, "sweep.h5"), "w") as f:
        def add(setting, tname, chunk_bytes, kind, **kw):
            t = SWEEP_TYPES[tname]
            item = np.dtype(t).itemsize
            chunk = max(1, chunk_bytes // item)
            n = chunk * 5 // 2 if chunk_bytes < (1 << 20) else chunk * 3 // 2  # a partial last chunk
            n = max(n, 3)
            name = "/%s/%s_%d_%s_%d" % (setting, tname, chunk * item, kind, n)
            f.create_dataset(name, data=sweep_values(n, kind, tname), chunks=(chunk,), **kw)
            names.append(name)

        sizes = (1, 7, 64, 1000, 4104, 65536)
        big = (1 << 20, 4 << 20)

        def each(setting, kinds=("r", "z"), types=("u8", "f32"), chunk_sizes=sizes, **kw):
            for tname in types:
                for cb in chunk_sizes:
                    if cb < np.dtype(SWEEP_TYPES[tname]).itemsize:
                        continue
                    for kind in kinds:
                        add(setting, tname, cb, kind, **kw)

        # deflate (HDF5's own): every level; shuffle; Fletcher-32
        for level in range(10):
            each("gzip%d" % level, types=("u8",), chunk_sizes=(1, 1000, 65536), compression="gzip",
                 compression_opts=level)
        each("gzip_big", chunk_sizes=big, kinds=("r",), compression="gzip", compression_opts=1)
        each("shuffle_gzip", types=("i16", "f64"), compression="gzip", shuffle=True)
        each("fletcher32", types=("u8", "f64"), fletcher32=True)
        # LZ4 (32004): block sizes from 0 (the plugin's 1 GiB) and 1 byte up
        for block in (0, 1, 2, 7, 16, 255, 4096, 65536, 1 << 20, 1 << 30):
            each("lz4_b%d" % block, chunk_sizes=(1, 7, 1000, 65536) if block else sizes,
                 compression=32004, compression_opts=(block,))
        each("lz4_big", chunk_sizes=big, kinds=("r",), compression=32004, compression_opts=(16,))
        each("lz4_b1_gzip", types=("u8",), chunk_sizes=(7, 1000, 65536), compression=32004,
             compression_opts=(1,), fletcher32=True)
        # bzip2 (307): every level
        for level in range(1, 10):
            each("bzip2_%d" % level, types=("u8",), chunk_sizes=(1, 1000, 65536), compression=307,
                 compression_opts=(level,))
        # Blosc (32001): levels 0-9, shuffles 0-2 (none, byte, bit), compressors 0-5 but snappy (3,
        # not built into Debian's Blosc)
        for level in range(10):
            each("blosc_l%d" % level, types=("f32",), chunk_sizes=(4, 1000, 65536), compression=32001,
                 compression_opts=(0, 0, 0, 0, level, 1, 1))
        for shuffle in range(3):
            for code in (0, 1, 2, 4, 5):
                each("blosc_s%d_c%d" % (shuffle, code), types=("u8", "f64"), chunk_sizes=(1, 8, 1000, 65536),
                     compression=32001, compression_opts=(0, 0, 0, 0, 5, shuffle, code))
        each("blosc_big", chunk_sizes=big, kinds=("r",), types=("f32",), compression=32001,
             compression_opts=(0, 0, 0, 0, 9, 2, 5))
        # bitshuffle (32008): block sizes 0 (its default) and 8 up to 2^24 elements, without and with LZ4
        for compression in (0, 2):
            for block in (0, 8, 16, 64, 1024, 1 << 16, 1 << 24):
                each("bitshuffle_b%d_c%d" % (block, compression), types=("u8", "i16", "f64"),
                     chunk_sizes=(8, 800, 65536), compression=32008, compression_opts=(block, compression))
        each("bitshuffle_big", chunk_sizes=big, kinds=("r",), types=("f32",), compression=32008,
             compression_opts=(0, 2))
        # LZF (32000)
        each("lzf", compression="lzf")
        each("lzf_big", chunk_sizes=big, kinds=("r",), compression="lzf")
    with open(os.path.join(folder, "sweep.txt"), "w") as out:
        out.write("\n".join(names) + "\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "sweep":
        sweep(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "zstd-chunk":
        import zstandard
        with open(sys.argv[2], "rb") as f:
            data = f.read()
        with open(sys.argv[3], "wb") as f:
            f.write(zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data))
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "dump":
        with h5py.File(sys.argv[2], "r") as f:
            a = f[sys.argv[3]][...]
        np.asarray(a, dtype=np.dtype(sys.argv[5] if len(sys.argv) == 6 else "float64")).tofile(sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
