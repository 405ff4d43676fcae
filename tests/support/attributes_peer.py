#!/usr/bin/python3
"""Attributes as h5py and zarr-python write and read them, for chunkwise's attribute tests.

  attributes_peer.py read-h5 FILE OBJECT OUT    h5py's view of OBJECT's attributes, as JSON in OUT:
                                                 {name: [kind, value]}, kind one of int, float, str,
                                                 list-int, list-float, list-str
  attributes_peer.py read-zarr STORE OUT        zarr-python's view of the array's or group's
                                                 attributes, the same way
  attributes_peer.py write-h5 FILE              a file whose dataset "good" holds attributes of every
                                                 kind h5py writes (int32, uint8, float32, str, bytes,
                                                 fixed-length strings, lists), "matrix" a 2x2
                                                 attribute and "huge" a uint64 beyond int64
  attributes_peer.py write-zarr DIR             a v2 group DIR/group (attributes) holding the array
                                                 "good" (attributes of every kind) and "flag" (a
                                                 boolean attribute)
"""
import json
import sys

import numpy as np


def kind_of(v):
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", v]
    if isinstance(v, float):
        return ["float", v]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, (list, tuple)):
        v = [x.decode() if isinstance(x, bytes) else x for x in v]
        if all(isinstance(x, str) for x in v) and v:
            return ["list-str", v]
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v) and v:
            return ["list-int", v]
        return ["list-float", [float(x) for x in v]]
    return ["other", repr(v)]


def main():
    what = sys.argv[1]
    if what == "read-h5":
        import h5py
        with h5py.File(sys.argv[2], "r") as f:
            attrs = {k: kind_of(v) for k, v in f[sys.argv[3]].attrs.items()}
        json.dump(attrs, open(sys.argv[4], "w"))
        return 0
    if what == "read-zarr":
        import zarr
        attrs = {k: kind_of(v) for k, v in zarr.open(sys.argv[2], mode="r").attrs.asdict().items()}
        json.dump(attrs, open(sys.argv[3], "w"))
        return 0
    if what == "write-h5":
        import h5py
        with h5py.File(sys.argv[2], "w") as f:
            d = f.create_dataset("good", data=np.arange(6, dtype="f4"))
            d.attrs["int32"] = np.int32(-7)
            d.attrs["uint8"] = np.uint8(200)
            d.attrs["float32"] = np.float32(0.25)
            d.attrs["str"] = "nm"
            d.attrs["bytes"] = b"raw"
            d.attrs["fixed"] = np.array(b"fixed", dtype="S8")
            d.attrs["ints"] = np.arange(3, dtype="i2")
            d.attrs["floats"] = np.array([0.5, 1.5])
            d.attrs["strs"] = np.array(["a", "bc"], dtype=h5py.string_dtype())
            f.create_dataset("matrix", data=np.zeros(2)).attrs["m"] = np.zeros((2, 2))
            f.create_dataset("huge", data=np.zeros(2)).attrs["u"] = np.uint64(2**63 + 1)
        return 0
    if what == "write-zarr":
        import zarr
        kw = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
        g = zarr.open_group(sys.argv[2] + "/group", mode="w", **kw)
        g.attrs["title"] = "trajectory"
        a = g.create_array("good", shape=(4,), dtype="f4") if hasattr(g, "create_array") else \
            g.create_dataset("good", shape=(4,), dtype="f4")
        a[...] = 1
        a.attrs.update({"int": -7, "big": 2**40, "float": 0.25, "str": "nm", "ints": [1, 2, 3],
                        "floats": [0.5, 2], "strs": ["a", "bc"], "empty": []})
        b = g.create_array("flag", shape=(2,), dtype="f4") if hasattr(g, "create_array") else \
            g.create_dataset("flag", shape=(2,), dtype="f4")
        b[...] = 0
        b.attrs["flag"] = True
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
