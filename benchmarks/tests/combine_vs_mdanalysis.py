"""Checks examples/10-combine's results (RESULTS.h5) against MDAnalysis on the same trajectory:
RMSF per atom (rms.RMSF), the windowed MSD (msd.EinsteinMSD with fft=False, its first lags) and
the histogram of distances to each frame's centre of geometry (numpy's histogram of the same
distances, the bins of RESULTS.h5). Exit status 1 where any differs by more than 1e-4
(relative for RMSF and MSD; the fraction of counts for the histogram).

    /usr/bin/python3 combine_vs_mdanalysis.py TRAJECTORY.h5 RESULTS.h5
"""
import sys
import warnings

import h5py
import numpy as np

warnings.filterwarnings("ignore")
import MDAnalysis as mda  # noqa: E402
from MDAnalysis.analysis import msd, rms  # noqa: E402
from MDAnalysis.coordinates.H5MD import H5MDReader  # noqa: E402

traj, results = sys.argv[1], sys.argv[2]
with h5py.File(results, "r") as f:
    rmsf = f["/rmsf"][...]
    counts = f["/histogram/counts"][...]
    edges = f["/histogram/edges"][...]
    msds = f["/msd"][...]
n_atoms = rmsf.shape[0]
u = mda.Universe.empty(n_atoms, trajectory=True)
u.load_new(traj, format=H5MDReader, convert_units=False)  # nm, as chunkwise reads the file
status = 0


def report(what, worst, limit):
    global status
    ok = worst <= limit
    status |= 0 if ok else 1
    print("%s: largest difference to MDAnalysis %.3g (limit %.0e) %s" % (what, worst, limit, "ok" if ok else "DIFFERS"))


ref = rms.RMSF(u.atoms).run().results.rmsf
report("RMSF of %d atoms" % n_atoms, float(np.max(np.abs(rmsf - ref) / np.maximum(ref, 1e-12))), 1e-4)
lags = msds.shape[0]
ref_msd = msd.EinsteinMSD(u, select="all", msd_type="xyz", fft=False).run().results.timeseries[:lags]
report("MSD of lags 0..%d" % (lags - 1), float(np.max(np.abs(msds[1:] - ref_msd[1:]) / ref_msd[1:])), 1e-4)
distances = []
for ts in u.trajectory:
    x = ts.positions.astype(np.float64)
    distances.append(np.linalg.norm(x - x.mean(axis=0), axis=1))
ref_counts, _ = np.histogram(np.concatenate(distances), bins=edges)
# np.histogram puts values equal to the last edge in the last bin; chunkwise counts them as overflow.
diff = np.abs(counts - ref_counts).sum()
report("histogram of %d distances" % int(ref_counts.sum()), float(diff / max(ref_counts.sum(), 1)), 1e-4)
sys.exit(status)
