#!/usr/bin/python3
"""What xarray sees of the dimensions chunkwise writes, for chunkwise's dimension tests.

  dimensions_peer.py h5 FILE GROUP OUT    xarray.open_dataset(FILE, group=GROUP, engine="h5netcdf")
  dimensions_peer.py zarr STORE OUT       xarray.open_zarr(STORE) (a format-2 group)

Writes to OUT, as JSON: {"dims": {name: length}, "vars": {name: {"dims": [...], "attrs": {...},
"sum": sum of the values}}} for every variable, coordinates included.
"""
import json
import sys

import numpy as np
import xarray as xr


def plain(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, bytes):
        return v.decode()
    return v


def view(ds):
    out = {"dims": {str(k): int(v) for k, v in ds.sizes.items()}, "vars": {}}
    for name, var in ds.variables.items():
        out["vars"][str(name)] = {
            "dims": [str(d) for d in var.dims],
            "attrs": {str(k): plain(v) for k, v in var.attrs.items()},
            "sum": float(np.asarray(var.values, dtype=np.float64).sum()),
        }
    return out


def main():
    kind = sys.argv[1]
    if kind == "h5":
        with xr.open_dataset(sys.argv[2], group=sys.argv[3], engine="h5netcdf") as ds:
            result = view(ds)
        out = sys.argv[4]
    else:
        with xr.open_zarr(sys.argv[2]) as ds:
            result = view(ds)
        out = sys.argv[3]
    with open(out, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
