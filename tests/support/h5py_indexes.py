"""Files for test_hdf5_indexes.cpp: one dataset per chunk index type HDF5 writes, written by h5py
in the newer file format (libver='latest', as SWMR writers and a format bound of 1.10 or later
write), and h5py's own reading of them.

  python3 h5py_indexes.py write DIR          # DIR/indexes.h5 and DIR/expect/<name>.bin (h5py's values)
  python3 h5py_indexes.py index FILE PATH    # prints the dataset's chunk index type (h5py's low level)
  python3 h5py_indexes.py swmr FILE ROWS     # appends ROWS rows of 256 float32 in SWMR mode, then exits

Values name their element: value = linear element index * 0.5 (exact in float64 and float32).
"""
import os
import sys

import h5py
import numpy as np


def values(shape, dtype):
    n = int(np.prod(shape))
    return (np.arange(n, dtype=np.float64) * 0.5).astype(dtype).reshape(shape)


# name: (shape, chunks, maxshape, dtype, compression, what gets written)
DATASETS = {
    "fixed": ((300, 40), (7, 8), None, "f8", None, "all"),
    "fixed_gzip": ((300, 40), (7, 8), None, "f8", "gzip", "all"),
    "fixed_partial": ((300, 40), (7, 8), None, "f8", None, "some"),
    "fixed_paged": ((3000, 6), (1, 3), None, "f4", None, "all"),            # 6000 chunks: 6 pages
    "fixed_paged_gzip": ((3000, 6), (1, 3), None, "f4", "gzip", "some"),     # pages never written
    "fixed_larger_max": ((100, 12), (3, 5), (400, 12), "f8", None, "all"),   # max extent beyond the extent
    "extensible": ((500, 16), (3, 16), (None, 16), "f8", None, "all"),
    "extensible_gzip": ((500, 16), (3, 16), (None, 16), "f8", "gzip", "all"),
    "extensible_axis1": ((20, 400), (6, 7), (20, None), "f8", None, "all"),   # unlimited axis not the first
    "extensible_partial": ((2000, 4), (1, 4), (None, 4), "f4", "gzip", "some"),
    "extensible_3d": ((40, 5, 6), (2, 2, 4), (40, None, 6), "f8", None, "all"),
    "btree2": ((90, 70), (4, 3), (None, None), "f8", None, "all"),
    "btree2_gzip": ((90, 70), (4, 3), (None, None), "f8", "gzip", "some"),
    "btree2_deep": ((160, 160), (1, 1), (None, None), "f4", None, "all"),   # 25600 chunks: several levels
    "single": ((30, 20), (30, 20), (30, 20), "f8", None, "all"),
    "single_gzip": ((30, 20), (30, 20), (30, 20), "f8", "gzip", "all"),
    "single_empty": ((30, 20), (30, 20), (30, 20), "f8", None, "none"),
}


def write_one(f, name, spec):
    shape, chunks, maxshape, dtype, compression, what = spec
    d = f.create_dataset(name, shape, dtype=dtype, chunks=chunks, maxshape=maxshape, compression=compression,
                         fillvalue=-7.5)
    v = values(shape, dtype)
    if what == "all":
        d[...] = v
    elif what == "some":  # every third block of rows along the first axis, plus the last row
        step = chunks[0]
        for r in range(0, shape[0], 3 * step):
            d[r:r + step] = v[r:r + step]
        d[shape[0] - 1] = v[shape[0] - 1]


def write(folder):
    os.makedirs(os.path.join(folder, "expect"), exist_ok=True)
    path = os.path.join(folder, "indexes.h5")
    with h5py.File(path, "w", libver="latest") as f:
        for name, spec in DATASETS.items():
            write_one(f, name, spec)
        # Implicit: allocated early, no filter, fixed extent.
        space = h5py.h5s.create_simple((64, 10), (64, 10))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((8, 5))
        dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
        dcpl.set_fill_value(np.array(-7.5))
        h5py.h5d.create(f.id, b"implicit", h5py.h5t.IEEE_F64LE, space, dcpl=dcpl)
        f["implicit"][:40] = values((64, 10), "f8")[:40]
        # Extensible, then grown after writing (the index holds chunks the reader's extent covers).
        d = f.create_dataset("extensible_grown", (10, 8), dtype="f8", chunks=(4, 8), maxshape=(None, 8), fillvalue=-7.5)
        d[...] = values((10, 8), "f8")
        d.resize((25, 8))
        d[20:25] = values((25, 8), "f8")[20:25]
        # 1-d extensible arrays deep enough for super blocks with paged data blocks (> 131056 entries).
        d = f.create_dataset("extensible_paged", (140000,), dtype="u1", chunks=(1,), maxshape=(None,), fillvalue=7)
        d[: 140000 - 3000] = (np.arange(140000 - 3000) % 251).astype(np.uint8)
    with h5py.File(path, "r") as f:
        for name in f:
            np.ascontiguousarray(f[name][...]).astype(np.float64).tofile(os.path.join(folder, "expect", name + ".bin"))


def index_type(path, name):
    with h5py.File(path, "r") as f:
        d = f[name]
        plist = d.id.get_create_plist()
        print(plist.get_layout(), d.id.get_num_chunks() if hasattr(d.id, "get_num_chunks") else -1)


def swmr(path, rows):
    with h5py.File(path, "a", libver="latest") as f:
        d = f["data"]
        f.swmr_mode = True
        start = d.shape[0]
        for r in range(start, start + rows):
            d.resize((r + 1, d.shape[1]))
            d[r] = np.full(d.shape[1], r, dtype=np.float32)
            d.flush()


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "index":
        index_type(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "swmr":
        swmr(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit("usage: h5py_indexes.py write DIR | index FILE PATH | swmr FILE ROWS")
