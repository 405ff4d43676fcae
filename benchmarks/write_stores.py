#!/usr/bin/python3
"""The write table of docs/performance.md: `chunkwise-bench write` for each store and codec, in one run.

    /usr/bin/python3 benchmarks/write_stores.py --bench build/bench/benchmarks/chunkwise-bench --dir DIR \\
        [--shape 2000x50000] [--chunk 10x50000] [--threads 1,2] [--repeats 3] [--block-mib 16]

Runs, for HDF5, Zarr v2 and Zarr v3 (sharded: 4 chunk rows a shard), each codec (LZ4, Zstandard, deflate +
shuffle, Blosc; Zarr v3 has no LZ4 codec and no shuffle filter of its own: only Zstandard and Blosc there), `chunkwise-bench write ... --write-blocks --json`, and prints
one Markdown row per store and codec: the floor and the streaming write at each thread count, x of the floor, S(N),
the peak resident memory, h5::write_blocks / zarr::write_blocks on results in memory, and whether the values read
back were the ones written. Exit status 1 where any were not. Each run starts after the outputs of the run before
are removed and the dirty page cache written out (sync), so that no run pays for another's write-back.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

CODECS = [("lz4", "lz4", 0, False), ("zstd", "Zstandard", 0, False), ("gzip", "deflate + shuffle", 0, True),
          ("blosc", "Blosc (lz4, shuffle)", 0, True)]
STORES = [("h5", "HDF5", ".h5"), ("zarr2", "Zarr v2", ".zarr"), ("zarr3", "Zarr v3 sharded", ".zarr")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--shape", default="2000x50000")
    ap.add_argument("--chunk", default="10x50000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeats", default="3")
    ap.add_argument("--block-mib", default="16")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    threads = a.threads.split(",")
    head = "| store | codec |" + "".join(f" floor {n} / chunkwise {n} (x floor) |" for n in threads)
    head += f" S({threads[-1]}) | peak MiB | write_blocks {threads[-1]} (÷ stream) | values |"
    print(head)
    print("| --- | --- |" + " ---: |" * (len(threads) + 4))
    wrong = False
    for store, store_name, ext in STORES:
        for codec, codec_name, level, shuffle in CODECS:
            if store == "zarr3" and (codec == "lz4" or shuffle and codec != "blosc"):
                continue  # v3 has no LZ4 codec and no shuffle filter of its own
            out = os.path.join(a.dir, f"w-{store}-{codec}{ext}")
            js = os.path.join(a.dir, f"w-{store}-{codec}.json")
            cmd = [a.bench, "write", "--store", store, "--out", out, "--shape", a.shape, "--chunk", a.chunk,
                   "--codec", codec, "--threads", a.threads, "--repeats", a.repeats, "--block-mib", a.block_mib,
                   "--write-blocks", "--json", js]
            if level:
                cmd += ["--level", str(level)]
            if shuffle:
                cmd += ["--shuffle"]
            if store == "zarr3":
                cmd += ["--shard-rows", str(4 * int(a.chunk.split("x")[0]))]
            os.sync()
            run = subprocess.run(cmd, capture_output=True, text=True)
            sys.stderr.write(run.stdout + run.stderr)
            if os.path.isdir(out):
                shutil.rmtree(out)
            elif os.path.exists(out):
                os.remove(out)
            if run.returncode not in (0, 1):
                print(f"| {store_name} | {codec_name} | failed: {run.stderr.strip()} |")
                wrong = True
                continue
            with open(js) as f:
                results = json.load(f)["results"]
            row = f"| {store_name} | {codec_name} |"
            for r in results:
                row += f" {r['floor_seconds']:.4f} / {r['seconds']:.4f} ({r['x_floor']:.2f}x) |"
            last = results[-1]
            same = all(r["same_values"] for r in results)
            wrong = wrong or not same
            row += f" {last['speedup']:.2f} | {max(r['peak_rss_mib'] for r in results):.0f} |"
            row += f" {last['write_blocks_seconds']:.4f} ({last['write_blocks_seconds'] / last['seconds']:.2f}x) |"
            row += " same |" if same else " WRONG VALUES |"
            print(row, flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
