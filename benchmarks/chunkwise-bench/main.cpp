// chunkwise-bench: the strong-scaling suite.
//
//   chunkwise-bench generate --layout chunk1|contig|auto|gzip1|shgzip1 --atoms A --frames F --out FILE.h5
//                            [--codec lz4|zstd|bzip2|blosc|blosc:NAME]
//   chunkwise-bench rmsd --file FILE.h5 --threads 1,2,4 --repeats R --out DIR
//   chunkwise-bench synthetic --serial-fraction S --threads 1,2 --repeats R --out DIR
//   chunkwise-bench merge --out DIR RUN_DIR...
//   chunkwise-bench predict --from RUN_DIR... [--out DIR]
//   chunkwise-bench read --file FILE.h5 --threads 1,2 --repeats R [--json]
//   chunkwise-bench select --file FILE.h5 --select 564 --stride 16 --threads 1,2 --repeats R
//   chunkwise-bench first-read --file FILE.h5 [--make 100000x256 [--gzip]] --threads 1,2 --repeats R
//   chunkwise-bench codecs --file FILE.h5 --dataset PATH --threads 1,2 --repeats R
//   chunkwise-bench zarr --store DIR --threads 1,2 --repeats R
//   chunkwise-bench zarr-write --store DIR --out DIR --threads 1,2 [--codec C] [--mode mpi]
//   chunkwise-bench write --store h5|zarr2|zarr3 --out PATH --shape ROWSxCOLS --chunk ROWSxCOLS --codec C
//
// rmsd and synthetic write DIR/scaling.json, DIR/scaling.csv, DIR/speedup.png, DIR/phases.png
// and print the table; rmsd also writes the per-frame RMSD of its last repeat to DIR/rmsd.h5
// (/rmsd, float64). Started by an MPI launcher (mpiexec, srun), rmsd and synthetic run across
// the ranks, --threads then counting threads per rank (mpi_policy for 1, hybrid_policy above);
// benchmarks/scale-mpi.sh runs one launch per rank count and merges them. docs/scaling.md.
#include "../common/cli.hpp"
#if defined(CHUNKWISE_BENCH_HDF5)
#include "codecs.hpp"
#include "first_read.hpp"
#include "h5md.hpp"
#include "probe.hpp"
#include "read.hpp"
#include "select.hpp"
#include "rmsd_workload.hpp"
#endif
#if defined(CHUNKWISE_BENCH_ZARR)
#include "zarr.hpp"
#endif
#if defined(CHUNKWISE_BENCH_HDF5) && defined(CHUNKWISE_BENCH_ZARR)
#include "write.hpp"
#endif

#include <chunkwise/bench/plot.hpp>
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/chunkwise.hpp>
#if defined(CHUNKWISE_BENCH_HDF5)
#include <chunkwise/hdf5.hpp>
#endif
#if defined(CHUNKWISE_BENCH_MPI)
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#endif

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace bench = chunkwise::bench;
using chunkwise::block;

constexpr const char* usage =
    "usage:\n"
    "  chunkwise-bench generate --layout chunk1|contig|auto|gzip1|shgzip1 [--atoms 111815] [--frames 800] --out "
    "FILE.h5\n"
    "                           [--threads N] [--codec lz4|zstd|bzip2|blosc|blosc:NAME (with chunk1)]\n"
    "  chunkwise-bench rmsd --file FILE.h5 [--dataset PATH] [--threads 1,2,4] [--repeats 3] [--warmup 1] --out DIR\n"
    "                       [--every 200] [--block-mib 8] [--mode threads|mpi]\n"
    "  chunkwise-bench synthetic --serial-fraction S [--seconds 0.4] [--blocks 64] [--threads 1,2] [--repeats 3]\n"
    "                            [--warmup 1] --out DIR [--mode threads|mpi] [--work spin|sleep]\n"
    "                            [--read-mib D --worker-mibps b [--shared-mibps B]] [--comm-ms c [--comm-growth "
    "n|log]]\n"
    "  chunkwise-bench merge --out DIR [--cores C] [--cores-per-node C] RUN_DIR...\n"
    "  chunkwise-bench predict --from RUN_DIR... [--out DIR] [--cores C] [--cores-per-node C] [--leave-one-out]\n"
    "  chunkwise-bench read --file FILE.h5 [--dataset PATH] [--threads 1,2] [--repeats 3] [--every 200]\n"
    "                       [--block-mib 4] [--big-block-mib 128] [--json]\n"
    "  chunkwise-bench select --file FILE.h5 [--dataset PATH] [--select 564] [--stride 16] [--threads 1,2]\n"
    "                         [--repeats 3] [--block-mib 4]\n"
    "  chunkwise-bench first-read --file FILE.h5 [--dataset /data] [--threads 1,2] [--repeats 3] [--block-mib 4]\n"
    "                             [--make ROWSxCOLS [--gzip] [--index TYPE]] [--json]\n"
    "  chunkwise-bench codecs --file FILE.h5 [--dataset /data] [--threads 1,2] [--repeats 3] [--block-mib 4]\n"
    "                         [--json]\n"
    "  chunkwise-bench zarr --store DIR [--threads 1,2] [--repeats 3] [--block-mib 4]\n"
    "  chunkwise-bench zarr-write --store DIR --out DIR [--threads 1,2] [--repeats 3] [--codec zstd] [--level L]\n"
    "                             [--shuffle] [--format 2|3] [--shard-rows N] [--mode threads|mpi]\n"
    "  chunkwise-bench write --store h5|zarr2|zarr3 --out PATH --shape ROWSxCOLS --chunk ROWSxCOLS\n"
    "                        [--codec none|lz4|zstd|gzip|blosc] [--level L] [--shuffle] [--shard-rows N]\n"
    "                        [--threads 1,2] [--repeats 3] [--block-mib 16] [--write-blocks] [--mode threads|mpi]\n"
    "                        [--json FILE]\n"
    "rmsd and synthetic also take [--precision 0.03] [--budget-s 60] [--max-repeats 50] (repeat each count until\n"
    "its mean is known within ±precision at 95% confidence, or the budget per count runs out (default 60 s, or\n"
    "$CHUNKWISE_BENCH_BUDGET_S); --precision 0: exactly --repeats) and\n"
    "[--cores C] [--cores-per-node C] for the prediction.\n"
    "Under mpiexec/srun (or --mode mpi) rmsd and synthetic run across ranks; --threads is then per rank.\n";

/// True when an MPI launcher started this process (then MPI is initialised).
bool launched_by_mpi() {
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"}) {
        if (std::getenv(v) != nullptr) return true;
    }
    return std::getenv("SLURM_PROCID") != nullptr && std::getenv("SLURM_STEP_ID") != nullptr;
}

/// Checks that `dir` can hold the outputs (creates it); throws naming it otherwise.
void prepare_output(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path probe = dir / ".chunkwise-bench-write-test";
    std::FILE* f = ec ? nullptr : std::fopen(probe.c_str(), "w");
    if (f == nullptr) {
        throw std::invalid_argument("--out: cannot write into the folder " + dir.string() +
                                    (ec ? " (" + ec.message() + ")" : std::string()));
    }
    std::fclose(f);
    fs::remove(probe, ec);
}

/// Writes the report's files and plots; prints the table and where everything is.
void finish_report(const bench::scaling_report& report, const fs::path& dir, const std::string& extra = {}) {
    report.write(dir);
    const std::string plots = bench::write_plots(report, dir);
    std::printf("%s", report.table().c_str());
    std::printf(
        "wrote %s, %s%s%s\n", (dir / "scaling.json").c_str(), (dir / "scaling.csv").c_str(), extra.c_str(),
        plots.empty() ? (", " + (dir / "speedup.png").string() + ", " + (dir / "phases.png").string()).c_str() : "");
    if (!plots.empty()) std::printf("no plots: %s\n", plots.c_str());
}

#if defined(CHUNKWISE_BENCH_HDF5)
namespace h5 = chunkwise::h5;

// ---- generate ----

int cmd_generate(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"layout", "atoms", "frames", "out", "threads", "codec"}, {});
    const std::string layout = a.required("layout");
    const std::size_t atoms = a.count("atoms", 111815, 1), frames = a.count("frames", 800, 1);
    const fs::path out = a.required("out");
    const std::size_t threads = a.count("threads", chunkwise::thread_policy::default_workers(), 1);
    const auto t0 = chunkwise::clock::now();
    const std::string codec = a.text("codec", "");
    const auto chunk = bench_h5md::generate(out, layout, atoms, frames, threads, codec);
    std::string c = chunk.empty() ? "contiguous" : "chunks (";
    for (std::size_t d = 0; d < chunk.size(); ++d) c += (d ? ", " : "") + std::to_string(chunk[d]);
    if (!chunk.empty()) c += ")";
    std::printf("wrote %s: %zu frames x %zu atoms x 3 float32 (%.1f MiB), %s%s, in %.2f s\n", out.c_str(), frames,
                atoms, static_cast<double>(frames * atoms * 12) / (1 << 20), c.c_str(),
                layout == "gzip1"     ? " + gzip 1"
                : layout == "shgzip1" ? " + shuffle + gzip 1"
                : codec.empty()       ? ""
                                      : (" + " + codec).c_str(),
                chunkwise::seconds_since(t0));
    return 0;
}

// ---- rmsd: the reference workload ----

std::vector<double> flatten(const std::vector<std::vector<double>>& parts) {
    std::vector<double> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

void write_rmsd(const fs::path& dir, const std::vector<double>& values) {
    std::error_code ec;
    fs::remove(dir / "rmsd.h5", ec);
    h5::write(dir / "rmsd.h5", "/rmsd", values);
}

#endif

// ---- synthetic: a known serial fraction ----

double thread_cpu_seconds() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Keeps this thread busy for `seconds` of its own CPU time (work, not wall time: a preempted
/// thread does the same amount of work, later).
void spin(double seconds) {
    const double until = thread_cpu_seconds() + seconds;
    volatile double sink = 0;
    while (thread_cpu_seconds() < until) {
        for (int i = 0; i < 1000; ++i) sink = sink + 1e-9;
    }
}

/// Keeps this thread away for `seconds` of wall time (a worker that waits, like one reading). A sleep
/// overshoots (by a tenth of a millisecond or more on a virtual machine); what this thread slept beyond
/// what it was asked is taken off its next pause, so that many short pauses add up to the time asked
/// for, and a worker with more blocks does not wait longer per block than one with fewer.
void pause(double seconds) {
    thread_local double owed = 0;  // seconds slept beyond what the pauses before asked for
    const double want = seconds - owed;
    if (want <= 0) {
        owed = -want;
        return;
    }
    const auto t0 = chunkwise::clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(want));
    owed = std::max(0.0, chunkwise::seconds_since(t0) - want);
}

/// A workload whose every part is known, so that the harness's fits can be checked against it:
/// a serial part of s * seconds on the calling thread, then `blocks` blocks that each read
/// read_bytes / blocks bytes from a simulated file system (b bytes/s per worker, B shared: with N
/// workers reading at once each gets min(b, B / N)) and compute (1 - s) * seconds / blocks, then
/// a cost c g(N) on the calling thread that grows with the workers (communication, agreement).
/// Work is CPU time (spin) or wall time (sleep: scales past the cores a machine has).
struct synthetic_workload {
    double serial_fraction = 0.1, seconds = 0.4;
    bool sleep = false;           // sleep instead of spinning
    double read_bytes = 0;        // D
    double worker_bandwidth = 0;  // b, bytes/s
    double shared_bandwidth = 0;  // B, bytes/s (0: none)
    double comm = 0;              // c, seconds
    bool comm_log = false;        // g(N) = log2(N) (else N)
    std::vector<block> blocks;

    void work(double t) const {
        if (sleep) {
            pause(t);
        } else {
            spin(t);
        }
    }
    /// Seconds one worker takes to read `bytes` while `readers` read at once.
    [[nodiscard]] double read_time(double bytes, double readers) const {
        if (bytes <= 0 || worker_bandwidth <= 0) return 0;
        double rate = worker_bandwidth;
        if (shared_bandwidth > 0) rate = std::min(rate, shared_bandwidth / readers);
        return bytes / rate;
    }
    /// The aggregate bandwidth a short probe of the simulated file system measures with `threads`
    /// readers at once (bytes/s).
    [[nodiscard]] double probe(std::size_t threads) const {
        if (worker_bandwidth <= 0) return 0;
        const double k = static_cast<double>(threads);
        const double aggregate =
            shared_bandwidth > 0 ? std::min(shared_bandwidth, k * worker_bandwidth) : k * worker_bandwidth;
        const double piece = 0.05 * aggregate / k;  // about 50 ms
        const auto t0 = chunkwise::clock::now();
        std::vector<std::thread> readers;
        for (std::size_t i = 0; i < threads; ++i) {
            readers.emplace_back([&] { pause(read_time(piece, static_cast<double>(threads))); });
        }
        for (auto& t : readers) t.join();
        return piece * static_cast<double>(threads) / chunkwise::seconds_since(t0);
    }

    template <class Policy>
    auto run(Policy& policy) const {
        work(serial_fraction * seconds);
        const double each = (1.0 - serial_fraction) * seconds / static_cast<double>(blocks.size());
        const double readers = static_cast<double>(policy.workers());
        const double read_each = read_time(read_bytes / static_cast<double>(blocks.size()), readers);
        return chunkwise::map_blocks(policy, blocks, [this, each, read_each](const block&) {
            if (read_each > 0) {
                chunkwise::read_scope reading;
                pause(read_each);
                chunkwise::count_read_bytes(read_bytes / static_cast<double>(blocks.size()));
            }
            work(each);
        });
    }
    /// The cost that grows with the workers, after the run (on the calling thread).
    void after(std::size_t workers) const {
        const double n = static_cast<double>(workers);
        pause(comm * (comm_log ? std::log2(n) : n));
    }
};

// ---- running a workload over thread counts (threads) or ranks (MPI) ----

struct run_settings {
    std::vector<std::size_t> threads;
    std::size_t repeats = 3, warmup = 1, max_repeats = 50;
    double precision = 0.03, budget_s = 60;
};

/// Calls w.after(workers) where the workload has such a step (the synthetic one's growing cost).
template <class Workload>
void after_run(const Workload& w, std::size_t workers) {
    if constexpr (requires { w.after(workers); }) w.after(workers);
}

/// strong_scaling over the thread counts, in this process or (under MPI) on every rank of this
/// launch, each with a pool of that many threads; `combine` receives each repeat's gathered
/// results (on the root under MPI).
template <class Workload, class Combine>
bench::scaling_report run_counts(const std::string& name, const Workload& w, const run_settings& s, bool ranks,
                                 Combine&& combine) {
    bench::scaling_options opt;
    opt.workload = name;
    opt.workers = s.threads;
    opt.repeats = s.repeats;
    opt.warmup = s.warmup;
    opt.precision = s.precision;
    opt.budget_s = s.budget_s;
    opt.max_repeats = std::max(s.max_repeats, s.repeats);
    auto once = [&](auto& policy) {
        auto partial = w.run(policy);
        combine(chunkwise::gather(policy, std::move(partial)));
        after_run(w, policy.workers());
        return partial.stats();
    };
    if (ranks) {
#if defined(CHUNKWISE_BENCH_MPI)
        return bench::strong_scaling(
            opt, [](std::size_t threads) { return chunkwise::hybrid_policy(boost::mpi::communicator{}, threads); },
            once);
#endif
    }
    return bench::strong_scaling(opt, once);
}

bool mpi_mode(const bench_cli::args& a) {
    const std::string mode = a.text("mode", launched_by_mpi() ? "mpi" : "threads");
    if (mode != "threads" && mode != "mpi") throw std::invalid_argument("--mode: '" + mode + "' is not threads or mpi");
#if !defined(CHUNKWISE_BENCH_MPI)
    if (mode == "mpi") {
        throw std::invalid_argument("--mode mpi: this chunkwise-bench was built without MPI (CMake component mpi)");
    }
#endif
    return mode == "mpi";
}

/// Runs `w` over threads or ranks, then writes the report (root only under MPI).
/// What a workload reads, for the model: D bytes per run, and B bytes/s measured by a probe.
struct io_figures {
    double bytes_read = 0, shared_bandwidth = 0;
    std::string probe;
};

/// The hosts the launch was given (scale-mpi.sh sets CHUNKWISE_BENCH_HOSTS; 0: unknown).
std::size_t hosts_given() {
    const char* v = std::getenv("CHUNKWISE_BENCH_HOSTS");
    if (v == nullptr || *v == '\0') return 0;
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    return end != v && *end == '\0' ? static_cast<std::size_t>(n) : 0;
}

/// The repeat options every measuring command takes (see usage).
void repeat_settings(const bench_cli::args& a, run_settings& s) {
    s.repeats = a.count("repeats", 3, 1);
    s.warmup = a.count("warmup", 1, 0);
    s.precision = a.number("precision", 0.03);
    if (!(s.precision >= 0) || s.precision >= 1) {
        throw std::invalid_argument(
            "--precision: must lie in [0, 1) (0.03: each mean within ±3%; 0: exactly --repeats)");
    }
    double budget = 60;  // seconds per count; CHUNKWISE_BENCH_BUDGET_S sets the default for a whole suite
    if (const char* env = std::getenv("CHUNKWISE_BENCH_BUDGET_S"); env != nullptr && *env != '\0') {
        char* end = nullptr;
        budget = std::strtod(env, &end);
        if (end == env || *end != '\0' || !(budget >= 0)) {
            throw std::invalid_argument(std::string("CHUNKWISE_BENCH_BUDGET_S: '") + env + "' is not seconds >= 0");
        }
    }
    s.budget_s = a.number("budget-s", budget);
    if (!(s.budget_s >= 0)) throw std::invalid_argument("--budget-s: must be 0 (no limit) or positive seconds");
    s.max_repeats = a.count("max-repeats", 50, 1);
}

template <class Workload, class Combine>
int run_and_report(const bench_cli::args& a, const std::string& name, const std::string& input, const Workload& w,
                   Combine&& combine, const std::function<std::string(const fs::path&)>& extra_outputs,
                   const io_figures& io, const bench::fingerprint& print) {
    run_settings s;
    s.threads = a.counts("threads", {1, 2}, 1);
    repeat_settings(a, s);
    const fs::path out = a.required("out");
    bool root = true;
    const bool ranks = mpi_mode(a);
#if defined(CHUNKWISE_BENCH_MPI)
    if (ranks) root = boost::mpi::communicator{}.rank() == 0;
#endif
    bench::scaling_report report = run_counts(name, w, s, ranks, combine);
    report.input = input;
    report.fingerprint = print;
    report.hosts_given = hosts_given();
    if (!(report.bytes_read > 0)) report.bytes_read = io.bytes_read;  // the bytes the workers counted, else D
    report.shared_bandwidth = io.shared_bandwidth;
    report.probe = io.probe;
    if (root) {
        bench::predict(report, false, a.count("cores", 0, 1), a.count("cores-per-node", 0, 1));
        finish_report(report, out, extra_outputs(out));
    }
    return 0;
}

#if defined(CHUNKWISE_BENCH_HDF5)
int cmd_rmsd(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"file", "dataset", "threads", "repeats", "warmup", "out", "every", "block-mib", "mode",
                       "precision", "budget-s", "max-repeats", "cores", "cores-per-node"},
                      {});
    const fs::path file = a.required("file");
    const fs::path out = a.required("out");
    const std::string path = a.text("dataset", bench_h5md::positions_path);
    std::unique_ptr<bench_rmsd::rmsd_workload> w;
    std::string problem;
    int status = 1;
    try {
        (void)a.counts("threads", {1}, 1);  // bad lists fail before any file is opened
        run_settings check;
        repeat_settings(a, check);
        (void)a.count("cores", 0, 1);
        (void)a.count("cores-per-node", 0, 1);
        w = std::make_unique<bench_rmsd::rmsd_workload>(file, path, a.count("every", 200, 1),
                                                        a.count("block-mib", 8, 1) << 20);
        prepare_output(out);
    } catch (const std::invalid_argument& e) {
        problem = e.what();
        status = 2;
    } catch (const std::exception& e) {
        problem = e.what();
    }
#if defined(CHUNKWISE_BENCH_MPI)
    if (mpi_mode(a)) {  // every rank fails alike before any collective, or none does
        boost::mpi::communicator world;
        const int bad = problem.empty() ? 0 : 1;
        if (boost::mpi::all_reduce(world, bad, boost::mpi::maximum<int>()) != 0) {
            if (!problem.empty())
                std::fprintf(stderr, "chunkwise-bench rmsd (rank %d): %s\n", world.rank(), problem.c_str());
            return problem.empty() ? 1 : status;
        }
    }
#endif
    if (!problem.empty()) {
        std::fprintf(stderr, "chunkwise-bench rmsd: %s\n", problem.c_str());
        return status;
    }
    std::vector<double> last;
    const std::string name = "rmsd " + file.filename().string();
    // D: what a pass reads from storage; B: what the file system gives several readers at once.
    io_figures io;
    io.bytes_read = static_cast<double>(h5::dataset(file, path).stored_bytes());
    const auto probe =
        bench_probe::probe_file(file, std::max<std::size_t>(2, chunkwise::thread_policy::default_workers()));
    io.shared_bandwidth = probe.bandwidth;
    io.probe = probe.text;
    std::error_code ec;
    const std::string input = fs::absolute(file, ec).lexically_normal().string() + ":" + h5::dataset(file, path).path();
    bench::fingerprint print;
    {
        const h5::dataset ds(file, path);
        print.program = "chunkwise-bench rmsd";
        print.workload = "rmsd";
        print.args = "--dataset " + ds.path() + " --every " + std::to_string(a.count("every", 200, 1)) +
                     " --block-mib " + std::to_string(a.count("block-mib", 8, 1));
        print.input_path = fs::absolute(file, ec).lexically_normal().string();
        print.input_bytes = static_cast<double>(fs::file_size(file, ec));
        std::string layout = "contiguous";
        if (const auto chunk = ds.chunk_shape()) {
            layout = "chunked (";
            for (std::size_t d = 0; d < chunk->size(); ++d) layout += (d ? ", " : "") + std::to_string((*chunk)[d]);
            layout += ")";
        }
        for (const std::string& f : ds.filters()) layout += ", " + f;
        print.input_layout = layout + ", " + ds.type_name();
    }
    return run_and_report(
        a, name, input, *w, [&](std::vector<std::vector<double>>&& parts) { last = flatten(parts); },
        [&](const fs::path& dir) {
            write_rmsd(dir, last);
            return ", " + (dir / "rmsd.h5").string() + " (" + std::to_string(last.size()) + " frames, " +
                   std::to_string(w->selected()) + " atoms each, " + std::to_string(w->blocks()) + " blocks)";
        },
        io, print);
}

#endif

int cmd_synthetic(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"serial-fraction", "seconds", "blocks", "threads", "repeats", "warmup", "out", "mode", "work",
                       "read-mib", "worker-mibps", "shared-mibps", "comm-ms", "comm-growth", "precision", "budget-s",
                       "max-repeats", "cores", "cores-per-node"},
                      {});
    synthetic_workload w;
    w.serial_fraction = a.number("serial-fraction", 0.1);
    w.seconds = a.number("seconds", 0.4);
    if (!(w.serial_fraction >= 0 && w.serial_fraction <= 1)) {
        throw std::invalid_argument("--serial-fraction: must lie in [0, 1]");
    }
    if (!(w.seconds > 0) || w.seconds > 86400) {
        throw std::invalid_argument("--seconds: must be positive and at most 86400 (a day), got " +
                                    a.text("seconds", ""));
    }
    const std::string work = a.text("work", "spin");
    if (work != "spin" && work != "sleep") throw std::invalid_argument("--work: '" + work + "' is not spin or sleep");
    w.sleep = work == "sleep";
    auto non_negative = [&](const char* option, double limit) {
        const double v = a.number(option, 0);
        if (!(v >= 0) || v > limit) {
            throw std::invalid_argument(std::string("--") + option + ": must lie in [0, " + std::to_string(limit) +
                                        "]");
        }
        return v;
    };
    w.read_bytes = non_negative("read-mib", 1e6) * 1048576.0;
    w.worker_bandwidth = non_negative("worker-mibps", 1e7) * 1048576.0;
    w.shared_bandwidth = non_negative("shared-mibps", 1e7) * 1048576.0;
    w.comm = non_negative("comm-ms", 1e5) / 1000.0;
    const std::string growth = a.text("comm-growth", "n");
    if (growth != "n" && growth != "log")
        throw std::invalid_argument("--comm-growth: '" + growth + "' is not n or log");
    w.comm_log = growth == "log";
    if (w.read_bytes > 0 && w.worker_bandwidth <= 0) {
        throw std::invalid_argument("--read-mib: needs --worker-mibps, the bandwidth each worker reads at");
    }
    w.blocks = chunkwise::partition(a.count("blocks", 64, 1), chunkwise::parts{a.count("blocks", 64, 1)});
    (void)a.counts("threads", {1}, 1);
    run_settings check;
    repeat_settings(a, check);
    (void)a.count("cores", 0, 1);
    (void)a.count("cores-per-node", 0, 1);
    prepare_output(a.required("out"));
    char name[256];
    std::snprintf(name, sizeof name, "synthetic s=%g seconds=%g blocks=%zu%s", w.serial_fraction, w.seconds,
                  w.blocks.size(), w.sleep ? " sleep" : "");
    std::string full = name;
    if (w.read_bytes > 0) {
        std::snprintf(name, sizeof name, " read=%gMiB b=%gMiB/s B=%gMiB/s", w.read_bytes / 1048576.0,
                      w.worker_bandwidth / 1048576.0, w.shared_bandwidth / 1048576.0);
        full += name;
    }
    if (w.comm > 0) {
        std::snprintf(name, sizeof name, " comm=%gms*%s", w.comm * 1000, w.comm_log ? "log2(N)" : "N");
        full += name;
    }
    io_figures io;
    io.bytes_read = w.read_bytes;
    if (w.read_bytes > 0) {
        io.shared_bandwidth = w.probe(16);
        io.probe = "16 simulated readers at once";
    }
    bench::fingerprint print;
    print.program = "chunkwise-bench synthetic";
    print.workload = "synthetic";
    print.args = full.substr(std::string("synthetic ").size());
    return run_and_report(
        a, full, "", w, [](auto&&) {}, [](const fs::path&) { return std::string(); }, io, print);
}

/// The reports in the run folders `dirs` (their scaling.json), merged into one.
bench::scaling_report read_reports(const char* command, const std::vector<std::string>& dirs) {
    if (dirs.empty()) throw std::invalid_argument(std::string(command) + ": name the run folders");
    std::vector<bench::scaling_report> parts;
    for (const std::string& dir : dirs) {
        const fs::path json = fs::path(dir) / "scaling.json";
        std::FILE* f = std::fopen(json.c_str(), "rb");
        if (f == nullptr) throw std::invalid_argument(std::string(command) + ": no " + json.string());
        std::string text;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
        parts.push_back(bench::scaling_report::from_json(text));
    }
    return bench::scaling_report::merge(parts, dirs);
}

int cmd_merge(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"out", "cores", "cores-per-node"}, {});
    const fs::path out = a.required("out");
    if (a.positional().empty()) throw std::invalid_argument("merge: name the run folders to merge");
    const std::size_t cores = a.count("cores", 0, 1), per_node = a.count("cores-per-node", 0, 1);
    bench::scaling_report report = read_reports("merge", a.positional());
    bench::predict(report, false, cores, per_node);
    prepare_output(out);
    finish_report(report, out);
    return 0;
}

int cmd_predict(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"from", "out", "cores", "cores-per-node"}, {"leave-one-out"});
    std::vector<std::string> dirs{a.required("from")};
    for (const std::string& d : a.positional()) dirs.push_back(d);
    bench::scaling_report report = read_reports("predict", dirs);
    bench::predict(report, true, a.count("cores", 0, 1), a.count("cores-per-node", 0, 1));
    if (a.flag("leave-one-out")) {
        double sum = 0;
        const auto held = bench::leave_one_out(report, a.count("cores", 0, 1));
        std::printf("leave-one-out: each point predicted by the model fitted to the others\n%8s %12s %12s %8s\n",
                    "workers", "measured s", "predicted s", "error");
        for (const auto& h : held) {
            std::printf("%8g %12.4f %12.4f %7.1f%%\n", h.workers, h.measured, h.predicted, 100 * h.error());
            sum += h.error() * h.error();
        }
        std::printf("RMS error %.1f%% over %zu points\n", 100 * std::sqrt(sum / static_cast<double>(held.size())),
                    held.size());
    }
    if (const std::string out = a.text("out", ""); !out.empty()) {
        prepare_output(out);
        finish_report(report, out);
    } else {
        std::printf("%s", report.table().c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(CHUNKWISE_BENCH_MPI)
    bool want_mpi = launched_by_mpi();
    for (int i = 1; i + 1 < argc; ++i)
        want_mpi = want_mpi || (std::string(argv[i]) == "--mode" && std::string(argv[i + 1]) == "mpi");
    std::optional<boost::mpi::environment> env;
    if (want_mpi) env.emplace(argc, argv, boost::mpi::threading::funneled);
#endif
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        std::fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    try {
        if (cmd == "synthetic") return cmd_synthetic(argc, argv);
        if (cmd == "merge") return cmd_merge(argc, argv);
        if (cmd == "predict") return cmd_predict(argc, argv);
#if defined(CHUNKWISE_BENCH_HDF5)
        if (cmd == "generate") return cmd_generate(argc, argv);
        if (cmd == "rmsd") return cmd_rmsd(argc, argv);
        if (cmd == "read") return bench_read::cmd_read(argc, argv);
        if (cmd == "first-read") return bench_first_read::cmd_first_read(argc, argv);
        if (cmd == "codecs") return bench_codecs::cmd_codecs(argc, argv);
        if (cmd == "select") return bench_select::cmd_select(argc, argv);
#else
        for (const char* c : {"generate", "rmsd", "read", "first-read", "codecs", "select"})
            if (cmd == c)
                throw std::invalid_argument(
                    "chunkwise-bench was built without the hdf5 component (Debian: libhdf5-dev)");
#endif
#if defined(CHUNKWISE_BENCH_ZARR)
        if (cmd == "zarr") return bench_zarr::cmd_zarr(argc, argv);
        if (cmd == "zarr-write") return bench_zarr::cmd_zarr_write(argc, argv);
#else
        if (cmd == "zarr" || cmd == "zarr-write")
            throw std::invalid_argument(
                "chunkwise-bench was built without the zarr component (Debian: nlohmann-json3-dev)");
#endif
#if defined(CHUNKWISE_BENCH_HDF5) && defined(CHUNKWISE_BENCH_ZARR)
        if (cmd == "write") return bench_write::cmd_write(argc, argv);
#else
        if (cmd == "write")
            throw std::invalid_argument("chunkwise-bench was built without the hdf5 or the zarr component");
#endif
        std::fprintf(stderr, "chunkwise-bench: unknown command '%s'\n%s", cmd.c_str(), usage);
        return 2;
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "chunkwise-bench %s: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "chunkwise-bench %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
}
