// chunkwise-bench: the strong-scaling suite.
//
//   chunkwise-bench generate --layout chunk1|contig|auto|gzip1|shgzip1 --atoms A --frames F --out FILE.h5
//   chunkwise-bench rmsd --file FILE.h5 --threads 1,2,4 --repeats R --out DIR
//   chunkwise-bench synthetic --serial-fraction S --threads 1,2 --repeats R --out DIR
//   chunkwise-bench merge --out DIR RUN_DIR...
//   chunkwise-bench read --file FILE.h5 --threads 1,2 --repeats R [--json]
//   chunkwise-bench select --file FILE.h5 --select 564 --stride 16 --threads 1,2 --repeats R
//
// rmsd and synthetic write DIR/scaling.json, DIR/scaling.csv, DIR/speedup.png, DIR/phases.png
// and print the table; rmsd also writes the per-frame RMSD of its last repeat to DIR/rmsd.h5
// (/rmsd, float64). Started by an MPI launcher (mpiexec, srun), rmsd and synthetic run across
// the ranks, --threads then counting threads per rank (mpi_policy for 1, hybrid_policy above);
// benchmarks/scale-mpi.sh runs one launch per rank count and merges them. docs/scaling.md.
#include "../common/cli.hpp"
#include "h5md.hpp"
#include "read.hpp"
#include "select.hpp"
#include "rmsd_workload.hpp"

#include <chunkwise/bench/plot.hpp>
#include <chunkwise/bench/scaling.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#if defined(CHUNKWISE_BENCH_MPI)
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#endif

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace h5 = chunkwise::h5;
namespace bench = chunkwise::bench;
using chunkwise::block;

constexpr const char* usage =
    "usage:\n"
    "  chunkwise-bench generate --layout chunk1|contig|auto|gzip1|shgzip1 [--atoms 111815] [--frames 800] --out "
    "FILE.h5\n"
    "                           [--threads N]\n"
    "  chunkwise-bench rmsd --file FILE.h5 [--dataset PATH] [--threads 1,2,4] [--repeats 3] [--warmup 1] --out DIR\n"
    "                       [--every 200] [--block-mib 8] [--mode threads|mpi]\n"
    "  chunkwise-bench synthetic --serial-fraction S [--seconds 0.4] [--blocks 64] [--threads 1,2] [--repeats 3]\n"
    "                            [--warmup 1] --out DIR [--mode threads|mpi]\n"
    "  chunkwise-bench merge --out DIR RUN_DIR...\n"
    "  chunkwise-bench read --file FILE.h5 [--dataset PATH] [--threads 1,2] [--repeats 3] [--every 200]\n"
    "                       [--block-mib 4] [--big-block-mib 128] [--json]\n"
    "  chunkwise-bench select --file FILE.h5 [--dataset PATH] [--select 564] [--stride 16] [--threads 1,2]\n"
    "                         [--repeats 3] [--block-mib 4]\n"
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

// ---- generate ----

int cmd_generate(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"layout", "atoms", "frames", "out", "threads"}, {});
    const std::string layout = a.required("layout");
    const std::size_t atoms = a.count("atoms", 111815, 1), frames = a.count("frames", 800, 1);
    const fs::path out = a.required("out");
    const std::size_t threads = a.count("threads", chunkwise::thread_policy::default_workers(), 1);
    const auto t0 = chunkwise::detail::clock::now();
    const auto chunk = bench_h5md::generate(out, layout, atoms, frames, threads);
    std::string c = chunk.empty() ? "contiguous" : "chunks (";
    for (std::size_t d = 0; d < chunk.size(); ++d) c += (d ? ", " : "") + std::to_string(chunk[d]);
    if (!chunk.empty()) c += ")";
    std::printf("wrote %s: %zu frames x %zu atoms x 3 float32 (%.1f MiB), %s%s, in %.2f s\n", out.c_str(), frames,
                atoms, static_cast<double>(frames * atoms * 12) / (1 << 20), c.c_str(),
                layout == "gzip1"     ? " + gzip 1"
                : layout == "shgzip1" ? " + shuffle + gzip 1"
                                      : "",
                chunkwise::detail::seconds_since(t0));
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

/// Serial part s * seconds on the calling thread, then (1 - s) * seconds split over `blocks` blocks.
struct synthetic_workload {
    double serial_fraction = 0.1, seconds = 0.4;
    std::vector<block> blocks;

    template <class Policy>
    auto run(Policy& policy) const {
        spin(serial_fraction * seconds);
        const double each = (1.0 - serial_fraction) * seconds / static_cast<double>(blocks.size());
        return chunkwise::map_blocks(policy, blocks, [each](const block&) { spin(each); });
    }
};

// ---- running a workload over thread counts (threads) or ranks (MPI) ----

struct run_settings {
    std::vector<std::size_t> threads;
    std::size_t repeats = 3, warmup = 1;
};

/// Threads in this process: strong_scaling over the thread counts; `last` receives the last
/// repeat's gathered results.
template <class Workload, class Combine>
bench::scaling_report run_threads(const std::string& name, const Workload& w, const run_settings& s,
                                  Combine&& combine) {
    bench::scaling_options opt;
    opt.workload = name;
    opt.workers = s.threads;
    opt.repeats = s.repeats;
    opt.warmup = s.warmup;
    return bench::strong_scaling(opt, [&](chunkwise::thread_policy& pool) {
        auto partial = w.run(pool);
        combine(chunkwise::gather(pool, std::move(partial)));
        return partial.stats();
    });
}

#if defined(CHUNKWISE_BENCH_MPI)
/// This launch's ranks, at each thread count per rank: one point each, on the root.
template <class Workload, class Combine>
bench::scaling_report run_ranks(const std::string& name, const Workload& w, const run_settings& s, Combine&& combine) {
    boost::mpi::communicator world;
    bench::scaling_report report;
    report.workload = name;
    bool hybrid = false;
    for (std::size_t threads : s.threads) {
        std::optional<chunkwise::mpi_policy> mpi;
        std::optional<chunkwise::hybrid_policy> hyb;
        if (threads == 1) {
            mpi.emplace(world);
        } else {
            hyb.emplace(world, threads);
            hybrid = true;
        }
        bench::scaling_point point;
        point.ranks = static_cast<std::size_t>(world.size());
        point.threads = threads;
        point.workers = point.ranks * threads;
        bench::phase_times sum;
        auto once = [&](auto& policy, bool timed) {
            world.barrier();
            const auto t0 = chunkwise::detail::clock::now();
            auto partial = w.run(policy);
            combine(chunkwise::gather(policy, std::move(partial)));
            const double mine = chunkwise::detail::seconds_since(t0);
            const double slowest = boost::mpi::all_reduce(world, mine, boost::mpi::maximum<double>());
            const auto stats = chunkwise::gather_stats(policy, partial.stats());
            if (timed && world.rank() == 0) {
                point.samples.push_back(slowest);
                const auto p = bench::phase_times::of(stats);
                sum.read += p.read;
                sum.compute += p.compute;
                sum.wait += p.wait;
                sum.combine += p.combine;
            }
        };
        for (std::size_t k = 0; k < s.warmup + s.repeats; ++k) {
            if (mpi) {
                once(*mpi, k >= s.warmup);
            } else {
                once(*hyb, k >= s.warmup);
            }
        }
        const double r = static_cast<double>(s.repeats);
        point.phases = {sum.read / r, sum.compute / r, sum.wait / r, sum.combine / r};
        report.points.push_back(std::move(point));
    }
    report.mode = hybrid ? "hybrid" : "mpi";
    if (world.rank() == 0) report.finish();  // the samples are on the root
    return report;
}
#endif

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
template <class Workload, class Combine>
int run_and_report(const bench_cli::args& a, const std::string& name, const std::string& input, const Workload& w,
                   Combine&& combine, const std::function<std::string(const fs::path&)>& extra_outputs) {
    run_settings s;
    s.threads = a.counts("threads", {1, 2}, 1);
    s.repeats = a.count("repeats", 3, 1);
    s.warmup = a.count("warmup", 1, 0);
    const fs::path out = a.required("out");
    bool root = true;
    bench::scaling_report report;
    if (mpi_mode(a)) {
#if defined(CHUNKWISE_BENCH_MPI)
        boost::mpi::communicator world;
        root = world.rank() == 0;
        report = run_ranks(name, w, s, combine);
#endif
    } else {
        report = run_threads(name, w, s, combine);
    }
    report.input = input;
    if (root) finish_report(report, out, extra_outputs(out));
    return 0;
}

int cmd_rmsd(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"file", "dataset", "threads", "repeats", "warmup", "out", "every", "block-mib", "mode"}, {});
    const fs::path file = a.required("file");
    const fs::path out = a.required("out");
    const std::string path = a.text("dataset", bench_h5md::positions_path);
    std::unique_ptr<bench_rmsd::rmsd_workload> w;
    std::string problem;
    int status = 1;
    try {
        (void)a.counts("threads", {1}, 1);  // bad lists fail before any file is opened
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
    std::error_code ec;
    const std::string input = fs::absolute(file, ec).lexically_normal().string() + ":" + h5::detail::normalize_path(path);
    return run_and_report(
        a, name, input, *w, [&](std::vector<std::vector<double>>&& parts) { last = flatten(parts); },
        [&](const fs::path& dir) {
            write_rmsd(dir, last);
            return ", " + (dir / "rmsd.h5").string() + " (" + std::to_string(last.size()) + " frames, " +
                   std::to_string(w->selected()) + " atoms each, " + std::to_string(w->blocks()) + " blocks)";
        });
}

int cmd_synthetic(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2,
                      {"serial-fraction", "seconds", "blocks", "threads", "repeats", "warmup", "out", "mode"}, {});
    synthetic_workload w;
    w.serial_fraction = a.number("serial-fraction", 0.1);
    w.seconds = a.number("seconds", 0.4);
    if (!(w.serial_fraction >= 0 && w.serial_fraction <= 1)) {
        throw std::invalid_argument("--serial-fraction: must lie in [0, 1]");
    }
    if (!(w.seconds > 0) || w.seconds > 86400) {
        throw std::invalid_argument("--seconds: must be positive and at most 86400 (a day), got " + a.text("seconds", ""));
    }
    w.blocks = chunkwise::partition(a.count("blocks", 64, 1), chunkwise::parts{a.count("blocks", 64, 1)});
    (void)a.counts("threads", {1}, 1);
    prepare_output(a.required("out"));
    char name[128];
    std::snprintf(name, sizeof name, "synthetic s=%g seconds=%g blocks=%zu", w.serial_fraction, w.seconds,
                  w.blocks.size());
    return run_and_report(
        a, name, "", w, [](auto&&) {}, [](const fs::path&) { return std::string(); });
}

int cmd_merge(int argc, char** argv) {
    bench_cli::args a(argc, argv, 2, {"out"}, {});
    const fs::path out = a.required("out");
    if (a.positional().empty()) throw std::invalid_argument("merge: name the run folders to merge");
    std::vector<bench::scaling_report> parts;
    for (const std::string& dir : a.positional()) {
        const fs::path json = fs::path(dir) / "scaling.json";
        std::FILE* f = std::fopen(json.c_str(), "rb");
        if (f == nullptr) throw std::invalid_argument("merge: no " + json.string());
        std::string text;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
        std::fclose(f);
        parts.push_back(bench::scaling_report::from_json(text));
    }
    prepare_output(out);
    finish_report(bench::scaling_report::merge(parts, a.positional()), out);
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
        if (cmd == "generate") return cmd_generate(argc, argv);
        if (cmd == "rmsd") return cmd_rmsd(argc, argv);
        if (cmd == "synthetic") return cmd_synthetic(argc, argv);
        if (cmd == "merge") return cmd_merge(argc, argv);
        if (cmd == "read") return bench_read::cmd_read(argc, argv);
        if (cmd == "select") return bench_select::cmd_select(argc, argv);
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
