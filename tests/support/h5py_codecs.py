"""Files for test_hdf5_codecs.cpp: one dataset per codec and setting, written by h5py through
Debian's HDF5 filter plugins (LZ4, bzip2, Blosc with each of its codecs and shuffles,
bitshuffle, LZF, Fletcher-32), and, where Debian 12 has no plugin (Zstandard, bitshuffle with
Zstandard inside), chunk by chunk with write_direct_chunk: the bytes made here with
python3-zstandard and bitshuffle's own transpose. Every dataset has a twin "<name>.expect"
stored without filters, holding its values, for the filters HDF5 here cannot decode.

  python3 h5py_codecs.py write DIR          # DIR/codecs.h5 and the list DIR/codecs.txt
  python3 h5py_codecs.py zstd-chunk IN OUT  # IN's bytes as one Zstandard frame (stating its size)
  python3 h5py_codecs.py dump FILE PATH OUT  # h5py's values of FILE:PATH (through the plugins), as float64 bytes
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


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "zstd-chunk":
        import zstandard
        with open(sys.argv[2], "rb") as f:
            data = f.read()
        with open(sys.argv[3], "wb") as f:
            f.write(zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data))
    elif len(sys.argv) == 5 and sys.argv[1] == "dump":
        with h5py.File(sys.argv[2], "r") as f:
            a = f[sys.argv[3]][...]
        np.asarray(a, dtype=np.float64).tofile(sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
