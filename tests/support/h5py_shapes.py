"""Files for test_hdf5_shapes.cpp, written by h5py as scientists write them, and a check that
h5py reads what chunkwise writes. The values follow formulas the C++ test computes too.

  python3 h5py_shapes.py write DIR        # every test file under DIR
  python3 h5py_shapes.py check FILE PATH KIND   # h5py reads chunkwise's ragged dataset (KIND: u8 | f32)
  python3 h5py_shapes.py dump FILE PATH OUT     # h5py's values of a dataset, as float64 or int64 bytes in OUT
"""
import os
import sys

import h5py
import numpy as np


def u8_record(i):  # record i of the uint8 images
    n = (i * 37) % 101
    return ((i * 7 + np.arange(n)) % 256).astype(np.uint8)


def f32_record(i):  # record i of the float spectra
    n = (i * 13) % 17
    return (i + 0.25 * np.arange(n)).astype(np.float32)


def position(rows, atoms, axis2, row0=0):  # value = row * 10000 + atom * 10 + c, exact in float32
    r = np.arange(row0, row0 + rows, dtype=np.float64)[:, None, None]
    a = np.arange(atoms, dtype=np.float64)[None, :, None]
    c = np.arange(axis2, dtype=np.float64)[None, None, :]
    return r * 10000 + a * 10 + c


def series_lengths(files):
    return [5 + (i * 7) % 11 for i in range(files)]


def write(folder):
    os.makedirs(folder, exist_ok=True)
    with h5py.File(os.path.join(folder, "vlen_u8.h5"), "w") as f:
        d = f.create_dataset("images", (200,), dtype=h5py.vlen_dtype(np.uint8), chunks=(16,))
        for i in range(200):
            d[i] = u8_record(i)
        f.create_dataset("labels", data=(np.arange(200) % 10 - 5).astype(np.int16))
    with h5py.File(os.path.join(folder, "vlen_f32.h5"), "w") as f:
        d = f.create_dataset("spectra", (50,), dtype=h5py.vlen_dtype(np.float32))
        for i in range(50):
            d[i] = f32_record(i)
        d2 = f.create_dataset("grid", (3, 4), dtype=h5py.vlen_dtype(np.float32))
        d2[0, 0] = np.ones(2, np.float32)
    with h5py.File(os.path.join(folder, "select.h5"), "w") as f:
        v = position(20, 100, 6)
        f.create_dataset("gzip", data=v.astype(np.float32), chunks=(3, 16, 2), compression="gzip", shuffle=True)
        f.create_dataset("chunked", data=v.astype(np.float32), chunks=(7, 10, 6))
        f.create_dataset("contiguous", data=v)
        f.create_dataset("int16", data=(v % 30000).astype(np.int16), chunks=(4, 32, 3))
        f.create_dataset("auto", data=v.astype(np.float32), chunks=True)
    for count in (1, 3, 20):
        sub = os.path.join(folder, "series%d" % count)
        os.makedirs(sub, exist_ok=True)
        row = 0
        for i, n in enumerate(series_lengths(count)):
            with h5py.File(os.path.join(sub, "part-%d.h5" % i), "w") as f:
                v = position(n, 50, 3, row0=row).astype(np.float32)
                if i % 3 == 0:
                    f.create_dataset("pos", data=v, chunks=(4, 25, 3), compression="gzip")
                elif i % 3 == 1:
                    f.create_dataset("pos", data=v)
                else:
                    f.create_dataset("pos", data=v, chunks=(3, 50, 3))
            row += n
    bad = os.path.join(folder, "series_bad")
    os.makedirs(bad, exist_ok=True)
    for i, atoms in enumerate((50, 50, 49)):
        with h5py.File(os.path.join(bad, "part-%d.h5" % i), "w") as f:
            f.create_dataset("pos", data=np.zeros((4, atoms, 3), np.float32))
    with h5py.File(os.path.join(bad, "text.h5"), "w") as f:
        f.create_dataset("pos", data=np.array([b"a", b"b"], dtype="S1"))


def check(path, name, kind):
    with h5py.File(path, "r") as f:
        d = f[name]
        assert h5py.check_vlen_dtype(d.dtype) is not None, "not a vlen dataset: %s" % d.dtype
        records = d[()]
        assert records.dtype == object and records.ndim == 1, records.dtype
        make = u8_record if kind == "u8" else f32_record
        want_dtype = np.uint8 if kind == "u8" else np.float32
        for i, r in enumerate(records):
            assert r.dtype == want_dtype, (i, r.dtype)
            assert np.array_equal(r, make(i)), "record %d differs" % i
    print("h5py read %d records of %s: ok" % (len(records), kind))


def dump(path, name, out):
    """The values h5py reads, widened to float64 (floats) or int64 (integers, enums, bitfields)."""
    with h5py.File(path, "r") as f:
        v = f[name][()]
    wide = np.float64 if v.dtype.kind == "f" else np.int64
    np.ascontiguousarray(v.astype("<" + np.dtype(wide).str[1:])).tofile(out)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4])
