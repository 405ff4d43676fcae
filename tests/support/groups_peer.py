#!/usr/bin/python3
"""Zarr groups chunkwise writes, as zarr-python and xarray open them, for chunkwise's group tests.

  groups_peer.py check STORE   STORE is a format-2 group chunkwise made with attribute title "run 1",
                               arrays rmsd (10 float64, i / 2, dims frame, units nm) and positions
                               (10 x 3 float32, i, dims frame, xyz), and a group sub holding the array
                               count (4 int32, i); checks that zarr-python's open_consolidated lists
                               them all and xarray.open_zarr opens the group with those dimensions,
                               attributes and values; prints "groups ok" or what differs, exit 1
"""
import sys

import numpy as np


def main():
    if len(sys.argv) != 3 or sys.argv[1] != "check":
        print(__doc__)
        return 2
    import xarray
    import zarr
    store = sys.argv[2]
    problems = []
    kw = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    g = zarr.open_consolidated(store, mode="r", **kw)
    members = sorted(k for k, _ in g.arrays())
    if members != ["positions", "rmsd"]:
        problems.append(f"consolidated arrays {members}")
    sub = g["sub"]
    if not np.array_equal(np.asarray(sub["count"][...]), np.arange(4, dtype="i4")):
        problems.append("sub/count differs")
    if dict(g.attrs) != {"title": "run 1"}:
        problems.append(f"group attributes {dict(g.attrs)}")
    ds = xarray.open_zarr(store, consolidated=True)
    if dict(ds.sizes) != {"frame": 10, "xyz": 3}:
        problems.append(f"xarray dimensions {dict(ds.sizes)}")
    if ds["rmsd"].dims != ("frame",) or ds["positions"].dims != ("frame", "xyz"):
        problems.append(f"xarray variable dimensions {ds['rmsd'].dims}, {ds['positions'].dims}")
    if ds["rmsd"].attrs.get("units") != "nm":
        problems.append(f"rmsd attributes {ds['rmsd'].attrs}")
    if ds.attrs.get("title") != "run 1":
        problems.append(f"dataset attributes {ds.attrs}")
    if not np.array_equal(ds["rmsd"].values, np.arange(10) / 2):
        problems.append("rmsd values differ")
    if not np.array_equal(ds["positions"].values, np.arange(30, dtype="f4").reshape(10, 3)):
        problems.append("positions values differ")
    print("groups ok" if not problems else "groups differ: " + "; ".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
