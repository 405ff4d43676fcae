#!/usr/bin/env bash
# The many-core suite: how close chunkwise's reads come to the parallel floor of this node at
# 1, 2, 4, ... cores, on every layout and codec, with h5py processes beside them. Builds nothing.
#
#   bash benchmarks/many-core.sh [--bench PROG] [--dir DIR] [--cores N] [--repeats 3]
#                                [--frames 240] [--atoms 111815] [--first-rows 100000] [--json FILE]
#                                [--no-h5py]
#
# --bench     chunkwise-bench (default: $CHUNKWISE_BENCH, else chunkwise-bench on PATH, else the
#             one installed beside this script, else build/bench/benchmarks/chunkwise-bench of
#             this source tree)
# --dir       where the files are written (default: ./many-core-files); kept for the next run
# --cores     the most threads (default: every core this process may run on); the counts are
#             1, 2, 4, ... up to it, and it
# --first-rows  first-read's file: this many deflated chunks of 1 KiB (256 float32 each)
# --json      every figure as JSON (default: DIR/many-core.json)
# PYTHON      the Python that runs the table and h5py (default: /usr/bin/python3, else python3)
#
# Writes the files (chunkwise-bench generate: 4 layouts and every codec this build writes, a
# frame per chunk; first-read's 10^5 deflated chunks of 1 KiB), then runs chunkwise-bench read,
# codecs and first-read at each thread count (best of --repeats, page cache warm) and, where h5py
# is importable, h5py processes reading the same files. Prints one table: chunkwise's time, the
# parallel floor (N threads pread-ing their share of the stored bytes + N threads decoding theirs
# from memory, measured in the same run), chunkwise as x of that floor, its speedup, h5py's time.
# A wrong answer (an RMSD differing in any bit from the HDF5 C loop's, or values differing from
# the chunks decoded alone) is printed as WRONG VALUES without a time, and the exit status is 1.
# The default sizes take about 5 minutes on 16 cores (docs/performance.md, "Many cores").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

bench="${CHUNKWISE_BENCH:-}"
dir="$PWD/many-core-files"
cores=""
repeats=3
frames=240
atoms=111815
first_rows=100000
json=""
extra=()
# usage 0: asked for (--help: the usage on standard output, exit 0); usage: a mistake (exit 2).
usage() {
    if [ "${1:-2}" = 0 ]; then sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
    sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --bench) bench="${2:?--bench needs a program}"; shift 2 ;;
        --dir) dir="${2:?--dir needs a folder}"; shift 2 ;;
        --cores) cores="${2:?--cores needs a count}"; shift 2 ;;
        --repeats) repeats="${2:?--repeats needs a count}"; shift 2 ;;
        --frames) frames="${2:?--frames needs a count}"; shift 2 ;;
        --atoms) atoms="${2:?--atoms needs a count}"; shift 2 ;;
        --first-rows) first_rows="${2:?--first-rows needs a count}"; shift 2 ;;
        --json) json="${2:?--json needs a file}"; shift 2 ;;
        --no-h5py) extra+=(--no-h5py); shift ;;
        -h|--help) usage 0 ;;
        *) echo "many-core.sh: unknown argument '$1'" >&2; usage ;;
    esac
done

fail() { echo "many-core.sh: $*" >&2; exit 2; }
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

# The program.
if [ -z "$bench" ]; then
    if command -v chunkwise-bench >/dev/null 2>&1; then
        bench="$(command -v chunkwise-bench)"
    elif [ -x "$here/../../../bin/chunkwise-bench" ]; then  # installed: PREFIX/share/chunkwise/many-core
        bench="$here/../../../bin/chunkwise-bench"
    elif [ -x "$here/../build/bench/benchmarks/chunkwise-bench" ]; then
        bench="$here/../build/bench/benchmarks/chunkwise-bench"
    fi
fi
[ -n "$bench" ] || fail "no chunkwise-bench found: pass --bench PROG or set CHUNKWISE_BENCH (build it with: cmake --preset bench && cmake --build --preset bench -j; docs/performance.md)"
[ -x "$bench" ] && [ -f "$bench" ] || fail "--bench: '$bench' is not an executable file"
said="$("$bench" 2>&1 || true)"
[[ "$said" == *"chunkwise-bench first-read"* ]] ||
    fail "--bench: '$bench' does not run as chunkwise-bench; it says: $(printf '%s' "$said" | head -n 3)"
# The system's Python first (where Debian's python3-h5py is importable), else python3 on PATH.
python="${PYTHON:-}"
if [ -z "$python" ]; then
    if [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; else python="$(command -v python3 || true)"; fi
fi
[ -n "$python" ] && "$python" -c "import json" >/dev/null 2>&1 ||
    fail "python3 is needed for the table (Debian: apt-get install python3; or set PYTHON)"

# The thread counts.
have="$(nproc)"
[ -n "$cores" ] || cores="$have"
is_count "$cores" || fail "--cores: '$cores' is not a positive count"
[ "$cores" -le "$have" ] || fail "--cores $cores: this process may run on $have cores only (nproc); ask for at most $have"
for o in repeats frames atoms first_rows; do
    is_count "${!o}" || fail "--${o/_/-}: '${!o}' is not a positive count"
done
counts=""
n=1
while [ "$n" -lt "$cores" ]; do counts="$counts${counts:+,}$n"; n=$((n * 2)); done
counts="$counts${counts:+,}$cores"

# Room for the files: 4 layouts and 6 codecs of frames x atoms x 12 bytes at most (uncompressed),
# a file being written, and first-read's (about 1.1 KiB a row).
mkdir -p "$dir" || fail "--dir: cannot make '$dir'"
[ -w "$dir" ] || fail "--dir: '$dir' is not writable"
need_mib=$(( (frames * atoms * 12 / 1048576 + 1) * 11 + first_rows * 1100 / 1048576 + 1 ))
free_mib=$(( $(df -Pk "$dir" | awk 'NR == 2 { print $4 }') / 1024 ))
held_mib=$(( $(du -sk "$dir" | awk '{ print $1 }') / 1024 ))
if [ $((free_mib + held_mib)) -lt "$need_mib" ]; then
    fail "too little space in '$dir': the files take up to $need_mib MiB, $free_mib MiB are free (and $held_mib MiB already there); pass --dir elsewhere, or fewer --frames/--atoms"
fi

echo "# many-core suite: $bench, threads $counts, files in $dir"
exec "$python" "$here/many_core.py" --bench "$bench" --dir "$dir" --threads "$counts" --repeats "$repeats" \
    --frames "$frames" --atoms "$atoms" --first-rows "$first_rows" --json "${json:-$dir/many-core.json}" "${extra[@]}"
