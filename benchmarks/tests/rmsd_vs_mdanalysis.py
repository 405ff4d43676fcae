"""Checks chunkwise-bench's per-frame RMSD (DIR/rmsd.h5) against MDAnalysis: the trajectory read
by MDAnalysis' H5MDReader, rms.rmsd(frame, frame 0, center=True, superposition=True) over every
`every`-th atom. Exit status 1 if any frame differs by more than 1e-4.

    /usr/bin/python3 rmsd_vs_mdanalysis.py TRAJECTORY.h5 DIR [EVERY]
"""
import sys
import warnings

import h5py
import numpy as np

warnings.filterwarnings("ignore")
from MDAnalysis.analysis import rms  # noqa: E402
from MDAnalysis.coordinates.H5MD import H5MDReader  # noqa: E402

traj, folder = sys.argv[1], sys.argv[2]
every = int(sys.argv[3]) if len(sys.argv) > 3 else 200
reader = H5MDReader(traj, convert_units=False)  # nm, as chunkwise reads the file
sel = np.arange(0, reader.n_atoms, every)
ref = None
expect = []
for ts in reader:
    x = ts.positions[sel].astype(np.float64)
    if ref is None:
        ref = x.copy()
    expect.append(rms.rmsd(x, ref, center=True, superposition=True))
expect = np.array(expect)
got = h5py.File(folder + "/rmsd.h5", "r")["/rmsd"][...]
if got.shape != expect.shape:
    sys.exit(f"{len(got)} frames in rmsd.h5, MDAnalysis read {len(expect)}")
worst = float(np.abs(got - expect).max())
print(f"{len(got)} frames, {len(sel)} atoms each: largest difference to MDAnalysis {worst:.3g} (RMSD up to {expect.max():.4f} nm)")
sys.exit(0 if worst <= 1e-4 else 1)
