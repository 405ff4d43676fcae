"""The reference workload in chunkwise and its peers, side by side, on the same files and worker
counts: chunkwise-bench rmsd (threads), MDAnalysis serially and under mpi4py (the H5MD study's
pattern), dask.array + h5py (processes). Prints one table of seconds and of each peer's time
divided by chunkwise's (above 1: chunkwise is faster).

    /usr/bin/python3 benchmarks/peers/peers.py --bench build/bench/benchmarks/chunkwise-bench \\
        --workers 1,2 [--repeats 1] [--launcher build/bench/chunkwise-mpiexec] FILE.h5...

--launcher is called as `LAUNCHER N PROGRAM ARGS...` (default: mpiexec -n N). Needs Debian's
python3-h5py, python3-mdanalysis, python3-dask and python3-mpi4py (docs/scaling.md).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def seconds(output):
    for line in output.splitlines():
        if line.startswith("seconds "):
            return float(line.split()[1])
    raise RuntimeError("no 'seconds' line in:\n" + output)


def run(cmd, ok=(0,)):
    """The command's standard output; RuntimeError with all it printed when its status is not in ok."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        raise RuntimeError(" ".join(cmd) + " failed:\n" + p.stdout + p.stderr)
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--bench", required=True, help="the chunkwise-bench program")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--launcher", default="", help="called as LAUNCHER N PROGRAM ARGS...")
    ap.add_argument("--no-mpi", action="store_true", help="leave out MDAnalysis under mpi4py")
    a = ap.parse_args()
    workers = [int(w) for w in a.workers.split(",")]
    if any(w < 1 for w in workers):
        sys.exit("peers.py: --workers: every count must be at least 1")
    python = sys.executable

    def launch(n, cmd):
        if a.launcher:
            return [a.launcher, str(n)] + cmd
        mpiexec = shutil.which("mpiexec")
        if mpiexec is None:
            sys.exit("peers.py: mpiexec not found: install openmpi-bin, pass --launcher, or --no-mpi")
        return [mpiexec, "-n", str(n)] + cmd

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in a.files:
            out = os.path.join(tmp, "cw")
            run([a.bench, "rmsd", "--file", f, "--threads", a.workers, "--repeats", str(max(a.repeats, 2)),
                 "--out", out])
            with open(os.path.join(out, "scaling.json")) as j:
                cw = {p["workers"]: p["seconds"]["min"] for p in json.load(j)["points"]}
            serial = seconds(run([python, os.path.join(HERE, "mda_rmsd.py"), f, "--repeats", str(a.repeats)]))
            for n in workers:
                mpi = None
                if not a.no_mpi:
                    mpi = seconds(run(launch(n, [python, os.path.join(HERE, "mda_rmsd.py"), f, "--mpi",
                                                 "--repeats", str(a.repeats)])))
                dsk = seconds(run([python, os.path.join(HERE, "dask_rmsd.py"), f, "--workers", str(n),
                                   "--repeats", str(a.repeats)]))
                rows.append((os.path.basename(f), n, cw[n], serial, mpi, dsk))

    def cell(t, base):
        return "%8s %7s" % ("-", "-") if t is None else "%8.3f %6.1fx" % (t, t / base)

    print("%-22s %3s %10s | %-16s | %-16s | %-16s" % ("file", "N", "chunkwise", "MDAnalysis serial",
                                                       "MDAnalysis mpi4py", "dask+h5py"))
    print("%-22s %3s %10s | %-16s | %-16s | %-16s" % ("", "", "s", "s   ratio", "s   ratio", "s   ratio"))
    for name, n, cw, serial, mpi, dsk in rows:
        print("%-22s %3d %10.3f | %s | %s | %s" % (name[:22], n, cw, cell(serial, cw), cell(mpi, cw), cell(dsk, cw)))
    print("ratio: the peer's seconds / chunkwise's at the same N (MDAnalysis serial: against chunkwise at that N)")


if __name__ == "__main__":
    main()
