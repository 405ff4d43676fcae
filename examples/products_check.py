#!/usr/bin/python3
"""Opens what examples/12-products wrote with xarray, as a user of its products would: the HDF5 file
through h5netcdf (netCDF-4's dimension scales), the Zarr group through zarr-python (consolidated
metadata, _ARRAY_DIMENSIONS). Checks the dimensions, the units, that both stores hold the same
values, and those values against numpy's from the trajectory (to rounding: numpy sums in another
order): time, rgyr and cog for every frame of both runs, rmsf over both runs for the ligand's atoms
and over the first run for the others.

  products_check.py DIR --continued M --ligand L   (DIR holds traj.h5, products.h5, products.zarr)
"""
import os
import sys

import h5py
import numpy as np
import xarray as xr

d = sys.argv[1]
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
continued, ligand = int(args["--continued"]), int(args["--ligand"])
x = h5py.File(os.path.join(d, "traj.h5"), "r")["/particles/all/position/value"][...].astype(np.float64)
frames, atoms = x.shape[0], x.shape[1]
first = frames - continued
c = x.mean(axis=1)
want = {
    "time": 10.0 * np.arange(frames),
    "rgyr": np.sqrt(((x - c[:, None, :]) ** 2).sum(axis=2).mean(axis=1)),
    "cog": c,
    "rmsf": np.concatenate([np.sqrt(x[:, :ligand].var(axis=0).sum(axis=1)),
                            np.sqrt(x[:first, ligand:].var(axis=0).sum(axis=1))]),
}
units = {"time": "ps", "rgyr": "nm", "cog": "nm", "rmsf": "nm"}
dims = {"time": ("time",), "rgyr": ("time",), "cog": ("time", "spatial"), "rmsf": ("atom",)}
h = xr.open_dataset(os.path.join(d, "products.h5"), engine="h5netcdf")
z = xr.open_zarr(os.path.join(d, "products.zarr"))
ok = True
for name, ds in (("products.h5", h), ("products.zarr", z)):
    sizes = {k: int(v) for k, v in ds.sizes.items()}
    good = sizes.get("time") == frames and sizes.get("atom") == atoms and sizes.get("spatial") == 3
    for v in want:
        good = good and ds[v].dims == dims[v] and ds[v].attrs.get("units") == units[v]
        good = good and np.allclose(ds[v].values, want[v], rtol=1e-6, atol=1e-9)
    print(f"xarray opens {name}: time {sizes.get('time')}, atom {sizes.get('atom')}, spatial {sizes.get('spatial')}; "
          f"units and dimensions as written, values equal to numpy's: {'yes' if good else 'NO'}")
    ok = ok and good
same = all(np.array_equal(h[v].values, z[v].values) for v in want)
print(f"both stores hold the same values: {'yes' if same else 'NO'}")
sys.exit(0 if ok and same else 1)
