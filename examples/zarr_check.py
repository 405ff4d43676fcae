#!/usr/bin/python3
"""Reads the stores examples/11-hdf5-to-zarr wrote with zarr-python and h5py, and compares:
per-frame.zarr against the centre of geometry and radius of gyration numpy computes from the HDF5
file (to rounding: numpy sums in another order), positions.zarr (Zarr v3: needs zarr-python 3)
against the HDF5 file to the bit.

  zarr_check.py DIR     (DIR holds traj.h5, per-frame.zarr, positions.zarr)
"""
import os
import sys

import h5py
import numpy as np
import zarr

d = sys.argv[1]
x = h5py.File(os.path.join(d, "traj.h5"), "r")["/particles/all/position/value"][...].astype(np.float64)
c = x.mean(axis=1)
rg = np.sqrt(((x - c[:, None, :]) ** 2).sum(axis=2).mean(axis=1))
want = np.column_stack([c, rg])
got = zarr.open_array(os.path.join(d, "per-frame.zarr"), mode="r")[...]
ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-9)
print(f"zarr-python {zarr.__version__}: per-frame.zarr: {'equal' if ok else 'DIFFERENT'} to numpy's values from the HDF5 file")
status = 0 if ok else 1
if int(zarr.__version__.split(".")[0]) >= 3:
    p = zarr.open_array(os.path.join(d, "positions.zarr"), mode="r")[...]
    same = np.array_equal(p, x.astype(np.float32))
    print(f"positions.zarr (v3, sharded): {'equal' if same else 'DIFFERENT'} to the HDF5 file, bit for bit")
    status |= 0 if same else 1
else:
    print("positions.zarr (v3): not read (zarr-python 3 reads Zarr v3; this one is " + zarr.__version__ + ")")
sys.exit(status)
