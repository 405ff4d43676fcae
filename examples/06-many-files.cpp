// 06: a production run over many small input files, the common case: each file is processed on
// its own and the results are combined. A few files are broken; the run finishes anyway, names
// them, writes a failure manifest and exits with status 3. Finished files are checkpointed, so a
// second invocation (or one after a crash, kill -9 included) loads them instead of recomputing.
//
//   06-many-files generate DIR [--files N] [--broken K]      make N input files, K of them broken
//   06-many-files run DIR [--threads N] [--retry MANIFEST]   process them (again: resume)
//
// Output in DIR: checkpoint/ (one file per finished input), run.log (every file's start and end),
// failed.csv (the broken files, for --retry after fixing them).
#include <chunkwise/chunkwise.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::size_t option(int argc, char** argv, const char* name, std::size_t fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == name) return std::stoul(argv[i + 1]);
    }
    return fallback;
}

// Each input: a header line "samples N", then N numbers. Broken ones lie about N or hold text.
void generate(const fs::path& dir, std::size_t files, std::size_t broken) {
    fs::create_directories(dir / "input");
    for (std::size_t f = 0; f < files; ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "sample-%05zu.txt", f);
        std::ofstream out(dir / "input" / name);
        const std::size_t n = 200 + (f * 37) % 300;
        const std::size_t every = broken > 0 ? std::max<std::size_t>(files / broken, 1) : 0;
        const bool bad = broken > 0 && f % every == every / 2;
        const bool short_file = bad && (f / every) % 2 == 0;  // else a sample is garbage
        out << "samples " << (short_file ? n + 5 : n) << "\n";
        for (std::size_t i = 0; i < n; ++i) {
            if (bad && !short_file && i == n / 2) {
                out << "NaN?garbage\n";
            } else {
                out << (static_cast<double>((f * 7919 + i * 104729) % 10007) / 100.0) << "\n";
            }
        }
    }
    std::printf("generated %zu files in %s (%zu broken)\n", files, (dir / "input").c_str(), broken);
}

// Reads one file: the mean and spread of its samples, or an exception naming what is wrong.
std::vector<double> process(const fs::path& file) {
    std::ifstream in(file);
    std::string word;
    std::size_t n = 0;
    if (!(in >> word >> n) || word != "samples") throw std::runtime_error("no 'samples N' header");
    double sum = 0, sum_sq = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::string token;
        if (!(in >> token))
            throw std::runtime_error("holds " + std::to_string(i) + " samples, header says " + std::to_string(n));
        std::size_t used = 0;
        double v = 0;
        try {
            v = std::stod(token, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != token.size())
            throw std::runtime_error("sample " + std::to_string(i) + " is not a number: '" + token + "'");
        sum += v;
        sum_sq += v * v;
    }
    chunkwise::log_note("read " + std::to_string(n) + " samples");
    return {sum, sum_sq, static_cast<double>(n)};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: 06-many-files generate|run DIR [options]\n");
        return 2;
    }
    const std::string mode = argv[1];
    const fs::path dir = argv[2];
    if (mode == "generate") {
        generate(dir, option(argc, argv, "--files", 2000), option(argc, argv, "--broken", 5));
        return 0;
    }
    if (mode != "run") {
        std::fprintf(stderr, "06-many-files: unknown mode %s\n", mode.c_str());
        return 2;
    }

    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir / "input")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (int i = 3; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--retry") {
            files = chunkwise::select_failed(files, chunkwise::read_failure_manifest(argv[i + 1]));
            std::printf("retrying the %zu files named in %s\n", files.size(), argv[i + 1]);
        }
    }

    chunkwise::thread_policy pool(option(argc, argv, "--threads", chunkwise::thread_policy::default_workers()));
    chunkwise::run_options opt;
    opt.errors = chunkwise::on_error::collect;
    opt.checkpoint = dir / "checkpoint";
    opt.log = dir / "run.log";
    opt.progress = true;
    auto partial = chunkwise::map_blocks(pool, files, process, opt);
    const auto failures = partial.failures();
    const std::size_t loaded = partial.stats().from_checkpoint;
    const std::size_t good = partial.size();
    auto totals = chunkwise::reduce(pool, std::move(partial), [](std::vector<double> a, const std::vector<double>& b) {
        for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
        return a;
    });
    std::printf("%zu files: %zu processed (%zu of them loaded from the checkpoint), %zu failed\n", files.size(), good,
                loaded, failures.size());
    if (totals.size() == 3 && totals[2] > 0) {
        const double mean = totals[0] / totals[2];
        std::printf("samples %.0f, mean %.6f, sd %.6f\n", totals[2], mean,
                    std::sqrt(totals[1] / totals[2] - mean * mean));
    }
    for (const auto& f : failures) std::printf("  broken: %s: %s\n", f.block.c_str(), f.message.c_str());
    if (!failures.empty()) {
        chunkwise::write_failure_manifest(dir / "failed.csv", failures);
        std::printf("failure manifest: %s (re-run just these with --retry %s)\n", (dir / "failed.csv").c_str(),
                    (dir / "failed.csv").c_str());
        return 3;
    }
    return 0;
}
