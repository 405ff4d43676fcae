#!/usr/bin/env python3
"""Writes the toy store of packaging.new_store with numpy: FOLDER/store/0.npy, 1.npy, ... (a
float64 array of shape (103, 7, 3) in files of 10 rows), and FOLDER/whole.bin (its bytes)."""
import pathlib
import shutil
import sys

import numpy as np

folder = pathlib.Path(sys.argv[1])
shutil.rmtree(folder, ignore_errors=True)
(folder / "store").mkdir(parents=True)
a = np.random.default_rng(7).standard_normal((103, 7, 3))
for k, start in enumerate(range(0, a.shape[0], 10)):
    np.save(folder / "store" / f"{k}.npy", a[start:start + 10])
a.tofile(folder / "whole.bin")
np.ascontiguousarray(a[:, [6, 0, 3, 3], :]).tofile(folder / "selected.bin")
