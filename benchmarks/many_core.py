"""The many-core suite's runner (benchmarks/many-core.sh checks its input and calls it): writes the
files with `chunkwise-bench generate`, runs `chunkwise-bench read`, `codecs` and `first-read` at
each thread count, h5py processes beside them where h5py is importable, and prints one table
(chunkwise against the parallel floor at each N: pread of the stored bytes + the decode alone,
both on N threads at once) and writes every figure as JSON.

    python3 benchmarks/many_core.py --bench PROG --dir DIR --threads 1,2,4 [--repeats 3]
        [--frames 240] [--atoms 111815] [--first-rows 100000] [--json FILE] [--no-h5py]

A run whose values are wrong (read: the RMSD differs from the C loop's in any bit; codecs: the
values differ from the chunks decoded alone) gets "WRONG VALUES" and no time; the exit status is
then 1.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
POSITIONS = "/particles/trajectory/position/value"
LAYOUTS = [("chunk1", "uncompressed, a frame per chunk"), ("contig", "contiguous"),
           ("gzip1", "gzip 1, a frame per chunk"), ("shgzip1", "shuffle + gzip 1, a frame per chunk")]
CODECS = ["lz4", "zstd", "bzip2", "blosc", "blosc:zstd", "blosc:lz4hc"]
# bzip2 decodes at about 30 MB/s a core: its file holds an eighth of the frames, to keep the
# suite's 1-thread passes short.
FRAMES_DIVISOR = {"bzip2": 8}


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def json_line(out):
    for line in out.splitlines():
        if line.startswith("json "):
            return json.loads(line[5:])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--threads", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--frames", type=int, default=240)
    ap.add_argument("--atoms", type=int, default=111815)
    ap.add_argument("--first-rows", type=int, default=100000)
    ap.add_argument("--json", default="")
    ap.add_argument("--no-h5py", action="store_true")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    tl = ",".join(map(str, threads))
    t_start = time.time()
    h5py_ok = False
    if not a.no_h5py:
        try:
            import h5py  # noqa: F401
            h5py_ok = True
        except ImportError:
            print("# h5py is not importable here: no h5py column")
    cpu = ""
    results = {"threads": threads, "repeats": a.repeats, "frames": a.frames, "atoms": a.atoms, "rows": []}
    rows = results["rows"]
    failed = False

    def generate(name, layout, codec="", frames=None):
        frames = frames or a.frames
        path = os.path.join(a.dir, "mc-%s-%dx%d.h5" % (name.replace(":", "-"), frames, a.atoms))
        if os.path.exists(path):
            return path, ""
        cmd = [a.bench, "generate", "--layout", layout, "--atoms", str(a.atoms), "--frames", str(frames),
               "--out", path + ".part"]
        if codec:
            cmd += ["--codec", codec]
        rc, out, err = run(cmd)
        if rc != 0:
            return None, (err or out).strip().splitlines()[-1] if (err or out).strip() else "failed"
        os.replace(path + ".part", path)
        return path, ""

    def h5py_seconds(path, n, dataset=POSITIONS):
        if not h5py_ok:
            return None
        rc, out, err = run([sys.executable, os.path.join(HERE, "peers", "h5py_read.py"), path, "--processes", str(n),
                            "--repeats", str(a.repeats), "--dataset", dataset])
        if rc != 0:
            print("# h5py on %s with %d processes failed: %s" % (os.path.basename(path), n, err.strip()[-200:]))
            return None
        for line in out.splitlines():
            if line.startswith("seconds "):
                return float(line.split()[1])
        return None

    def add(workload, n, seconds, floor, pread, decode, h5py_s, note=""):
        rows.append({"workload": workload, "threads": n, "chunkwise": seconds, "floor": floor,
                     "pread_floor": pread, "decode_floor": decode, "h5py": h5py_s, "note": note})

    # read: the reference workload's read alone on each layout, against pread (+ decode) at each N.
    for layout, text in LAYOUTS:
        path, why = generate(layout, layout)
        if path is None:
            print("# %s: not written: %s" % (layout, why))
            continue
        rc, out, err = run([a.bench, "read", "--file", path, "--threads", tl, "--repeats", str(a.repeats), "--json"])
        j = json_line(out)
        if j is None:
            print("# read %s failed:\n%s%s" % (layout, out, err))
            failed = True
            continue
        cpu = j.get("cpu", cpu)
        if rc != 0 or not j.get("same_values"):
            failed = True
            for n in threads:
                add("read " + text, n, None, None, None, None, None, "WRONG VALUES")
            continue
        dec = j.get("decode_floor") or [0.0] * len(threads)
        for i, n in enumerate(threads):
            add("read " + text, n, j["read_alone_threads"][i], j["floor_sum"][i], j["floor"][i], dec[i],
                h5py_seconds(path, n))
        results.setdefault("read", {})[layout] = j

    # codecs: every codec this build writes, a frame per chunk.
    for codec in CODECS:
        frames = max(1, a.frames // FRAMES_DIVISOR.get(codec, 1))
        path, why = generate(codec, "chunk1", codec, frames)
        if path is None:
            print("# %s: not written (%s)" % (codec, why))
            continue
        rc, out, err = run([a.bench, "codecs", "--file", path, "--dataset", POSITIONS, "--threads", tl, "--repeats",
                            str(a.repeats), "--json"])
        j = json_line(out)
        if j is None or rc != 0 or j.get("same_values") is False:
            failed = True
            print("# codecs %s failed:\n%s%s" % (codec, out[-2000:], err[-2000:]))
            for n in threads:
                add("codec " + codec, n, None, None, None, None, None, "WRONG VALUES" if j else "failed")
            continue
        for i, n in enumerate(threads):
            add("codec " + codec + ("" if frames == a.frames else " (%d frames)" % frames), n, j["chunkwise"][i], j["pread_floor"][i] + j["decode_floor"][i],
                j["pread_floor"][i], j["decode_floor"][i], None)
        results.setdefault("codecs", {})[codec] = j

    # first-read: 10^5 (--first-rows) deflated chunks of 1 KiB, each pass after a fresh open.
    small = os.path.join(a.dir, "mc-small-chunks-%dx256.h5" % a.first_rows)
    cmd = [a.bench, "first-read", "--file", small, "--threads", tl, "--repeats", str(a.repeats), "--json"]
    if not os.path.exists(small):
        cmd += ["--make", "%dx256" % a.first_rows, "--gzip"]
    rc, out, err = run(cmd)
    j = json_line(out)
    if rc != 0 or j is None:
        failed = True
        print("# first-read failed:\n%s%s" % (out, err))
    else:
        for i, n in enumerate(threads):
            add("first read, %d gzip chunks of 1 KiB" % j["chunks"], n, j["chunkwise"][i],
                j["pread_floor"][i] + j["decode_floor"][i], j["pread_floor"][i], j["decode_floor"][i],
                h5py_seconds(small, n, "/data"))
        results["first_read"] = j

    # The table.
    results["cpu"] = cpu
    print("# CPU: %s; best of %d, page cache warm; %d frames x %d atoms x 3 float32" % (cpu, a.repeats, a.frames,
                                                                                       a.atoms))
    print("# floor: N threads pread-ing their share of the stored bytes + N threads decoding theirs from memory")
    head = "%-44s %4s %10s %10s %9s %7s %9s %9s" % ("workload", "N", "chunkwise", "floor", "x floor", "S(N)",
                                                   "h5py", "h5py/cw")
    print(head)
    print("-" * len(head))
    one = {}
    for r in rows:
        if r["threads"] == 1 and r["chunkwise"]:
            one[r["workload"]] = r["chunkwise"]
    for r in rows:
        if r["chunkwise"] is None:
            print("%-44s %4d %10s" % (r["workload"][:44], r["threads"], r["note"]))
            continue
        s1 = one.get(r["workload"])
        h = r["h5py"]
        print("%-44s %4d %9.4fs %9.4fs %8.2fx %7s %9s %9s" % (
            r["workload"][:44], r["threads"], r["chunkwise"], r["floor"], r["chunkwise"] / r["floor"],
            "%.2f" % (s1 / r["chunkwise"]) if s1 else "-", "%.4fs" % h if h else "-",
            "%.2fx" % (h / r["chunkwise"]) if h else "-"))
    results["seconds"] = time.time() - t_start
    print("# the suite took %.0f s" % results["seconds"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
        print("# JSON: %s" % a.json)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
