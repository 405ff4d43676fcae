// chunkwise-doctor [PATH] [--json]: what HDF5, MPI, codecs and file system this program really
// has, and every mismatch among them named with its fix (docs/installing.md). Alone or under
// mpiexec/srun: each rank reports its host, cores and affinity; rank 0 prints.
//
// Checks: HDF5 compiled against vs loaded, serial or parallel, thread-safe; the plugin path; for
// every filter HDF5 users meet, who decodes it here (chunkwise in the worker with its library's
// version, an HDF5 plugin that loads, or nobody: a problem only where this build has the codec
// but not its library, and no plugin loads); zlib; MPI implementation and version, the thread level granted,
// Boost.MPI's MPI the same as the program's; for PATH: the file system (NFS, Lustre, GPFS, local), whether it can be
// written and locked; the chunk index types of the HDF5 file format, each written there and read back, and how the
// reads find their chunks; finally a small threaded read (and under MPI, a collective write and read) there.
#include <chunkwise/bench/machine.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/hdf5/filters.hpp>

#include <H5PLpublic.h>
#include <hdf5.h>
#include <zlib.h>

#if defined(CHUNKWISE_DOCTOR_MPI)
#include <chunkwise/mpi.hpp>

#include <boost/mpi/environment.hpp>
#include <mpi.h>
#endif

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

struct finding {
    std::string area, name, value;
    std::string problem;  // "" when fine
    std::string fix;
};
std::vector<finding> found;

void note(std::string area, std::string name, std::string value, std::string problem = {}, std::string fix = {}) {
    found.push_back({std::move(area), std::move(name), std::move(value), std::move(problem), std::move(fix)});
}

std::string json_text(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

std::string version_text(unsigned a, unsigned b, unsigned c) {
    return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
}

void check_hdf5() {
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    const std::string compiled = version_text(H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
    const std::string loaded = version_text(maj, min, rel);
    note("hdf5", "compiled against", compiled);
    if (compiled != loaded) {
        note("hdf5", "loaded", loaded, "the HDF5 loaded at run time is not the one compiled against",
             "rebuild against the HDF5 you run with, or point LD_LIBRARY_PATH at the one compiled against");
    } else {
        note("hdf5", "loaded", loaded);
    }
#if defined(H5_HAVE_PARALLEL)
    note("hdf5", "build", "parallel (MPI-IO)");
#else
    note("hdf5", "build", "serial");
#endif
    hbool_t safe = 0;
    H5is_library_threadsafe(&safe);
    if (safe) {
        note("hdf5", "thread-safe", "yes (one global lock)");
    } else {
        note("hdf5", "thread-safe", "no", "HDF5 is not thread-safe: threads calling it at once corrupt its state",
             "use a thread-safe HDF5 (Debian's libhdf5-dev; Spack hdf5+threadsafe), or one thread per rank");
    }
    const char* env = std::getenv("HDF5_PLUGIN_PATH");
    std::string paths;
    unsigned n = 0;
    H5PLsize(&n);
    for (unsigned i = 0; i < n; ++i) {
        char buf[4096] = {};
        if (H5PLget(i, buf, sizeof buf) > 0) paths += (paths.empty() ? "" : ":") + std::string(buf);
    }
    note("hdf5", "plugin path", paths.empty() ? "(none)" : paths + (env ? " (HDF5_PLUGIN_PATH)" : ""));
}

// Each filter HDF5 users meet: who decodes it here — chunkwise in the worker (with the library
// and version it uses), an HDF5 plugin that loads (under HDF5's lock), HDF5 itself — or nobody.
// Only a filter chunkwise has a codec for that nobody can decode in this build is a problem (a
// build without its library and no plugin); the others (zfp, sz, ...) are listed as unreadable
// with where their plugin comes from.
void check_codecs() {
    const std::string z = zlibVersion();
    if (z != ZLIB_VERSION) {
        note("codecs", "zlib", z, "zlib loaded (" + z + ") is not the one compiled against (" ZLIB_VERSION ")",
             "rebuild against the zlib you run with");
    }
    for (const chunkwise::h5::filter_info& f : chunkwise::h5::known_filters()) {
        const bool builtin = f.id <= 6;  // deflate, shuffle, fletcher32, szip, nbit, scaleoffset
        const htri_t avail = H5Zfilter_avail(static_cast<H5Z_filter_t>(f.id));
        H5Eclear2(H5E_DEFAULT);
        const bool hdf5 = avail > 0;
        std::string value;
        if (f.decoded_here) {
            value = "chunkwise, in the worker (" + (f.library.empty() ? std::string("its own code") : f.library) + ")";
            if (hdf5) value += builtin ? "; HDF5 too" : "; HDF5 plugin loads too";
        } else if (hdf5) {
            value = builtin ? "HDF5 (built in), under its lock"
                            : "HDF5 plugin (filter " + std::to_string(f.id) + "), under HDF5's lock";
        } else {
            value = "cannot be read here";
        }
        const std::string name = f.name + " (" + std::to_string(f.id) + ")";
        if (!f.decoded_here && !hdf5 && f.needs_library) {
            note("codecs", name, value,
                 "files compressed with " + f.name + " (HDF5 filter " + std::to_string(f.id) +
                     ") cannot be read: this build has no " + f.missing_library + " library and no plugin loads",
                 "rebuild chunkwise::hdf5 with " + f.missing_library + ", or install its plugin (" + f.provider + ")");
        } else if (!f.decoded_here && !hdf5) {
            note("codecs", name, value + ": files compressed with " + f.name + " need its plugin (" + f.provider + ")");
        } else {
            note("codecs", name, value);
        }
    }
}

std::string fs_name(long type) {
    switch (static_cast<unsigned long>(type)) {
        case 0x6969:
            return "NFS";
        case 0x0BD00BD0:
            return "Lustre";
        case 0x47504653:
            return "GPFS (IBM Spectrum Scale)";
        case 0xEF53:
            return "ext2/3/4 (local)";
        case 0x58465342:
            return "XFS (local)";
        case 0x01021994:
            return "tmpfs (memory)";
        case 0x9123683E:
            return "Btrfs (local)";
        case 0x794C7630:
            return "overlayfs (container)";
        case 0xFF534D42:
            return "CIFS/SMB";
        case 0x65735546:
            return "FUSE";
        default: {
            char b[32];
            std::snprintf(b, sizeof b, "type 0x%lx", static_cast<unsigned long>(type));
            return b;
        }
    }
}

/// Returns whether PATH can be written (the read test runs only then).
bool check_path(const std::filesystem::path& dir) {
    struct statfs st {};
    if (::statfs(dir.c_str(), &st) != 0) {
        note("file system", "path", dir.string(), std::string("cannot be examined: ") + std::strerror(errno),
             "give an existing folder");
        return false;
    }
    const std::string kind = fs_name(static_cast<long>(st.f_type));
    note("file system", "type", kind + " at " + dir.string());
    const auto probe = dir / (".chunkwise-doctor-" + std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        note("file system", "writable", "no", std::string("cannot create a file there: ") + std::strerror(errno),
             "choose a folder you can write (results, checkpoints and logs go there)");
        return false;
    }
    note("file system", "writable", "yes");
    int lock_errno = 0;
    if (const char* sim = std::getenv("CHUNKWISE_DOCTOR_SIMULATE_NO_LOCKS"); sim != nullptr && *sim == '1') {
        lock_errno = ENOLCK;  // as a file system without locks answers (tests)
    } else if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        lock_errno = errno;
    }
    ::close(fd);
    std::filesystem::remove(probe);
    const char* hdf5_locking = std::getenv("HDF5_USE_FILE_LOCKING");
    const bool locking_off = hdf5_locking != nullptr && (std::strcmp(hdf5_locking, "FALSE") == 0);
    if (lock_errno != 0 && !locking_off) {
        note("file system", "file locks", std::string("not supported (") + std::strerror(lock_errno) + ")",
             "HDF5 1.10+ locks every file it opens; here that fails and files cannot be created or opened",
             "export HDF5_USE_FILE_LOCKING=FALSE (safe when no two programs write one file at once)");
    } else {
        note("file system", "file locks",
             lock_errno != 0 ? "not supported; HDF5_USE_FILE_LOCKING=FALSE is set" : "yes");
    }
    if (kind == "NFS" && lock_errno == 0)
        note("file system", "advice",
             "NFS: several ranks reading one file is fine; write results from one rank or "
             "with parallel HDF5 on a parallel file system");
    return true;
}

void check_host(int rank) {
    cpu_set_t set;
    CPU_ZERO(&set);
    const int usable = ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const unsigned hw = std::thread::hardware_concurrency();
    std::string value = std::string(host) + ", " + std::to_string(hw) + " hardware threads, " + std::to_string(usable) +
                        " usable by this process";
    // One core per rank is right for mpi_policy; hybrid_policy's threads would share it.
    if (usable == 1 && hw > 1) value += " (for hybrid_policy: mpiexec --map-by slot:PE=N, srun --cpus-per-task=N)";
    // Other work on the machine: a scaling run's workers would share the cores with it.
    chunkwise::bench::machine_info m;
    m.cores = static_cast<std::size_t>(usable > 0 ? usable : static_cast<int>(hw));
    m.load = chunkwise::bench::machine_info::load_average();
    if (!std::isnan(m.load)) {
        char load[160];
        std::snprintf(load, sizeof load, "; load average %.2f (1 min): about %.1f of them free", m.load,
                      m.cores_free());
        value += load;
        if (m.cores_free() < 0.8 * static_cast<double>(m.cores)) {
            value += " (other work is running: scaling measured now measures the machine, not the workload)";
        }
    }
    note("ranks", "rank " + std::to_string(rank), value);
}

void small_read(const std::filesystem::path& dir) {
    namespace h5 = chunkwise::h5;
    const auto file = dir / (".chunkwise-doctor-" + std::to_string(::getpid()) + ".h5");
    try {
        xt::xtensor<float, 2> x = xt::xtensor<float, 2>::from_shape({256, 64});
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i % 1009) * 0.5f;
        h5::write_options opt;
        opt.chunk = {16, 64};
        opt.deflate = 1;
        h5::write(file.string(), "/x", x, opt);
        const h5::dataset ds(file.string(), "/x");
        chunkwise::thread_policy pool(2);
        auto parts =
            chunkwise::map_blocks(pool, h5::partition(ds, chunkwise::parts{8}), [&](const chunkwise::block& b) {
                const auto v = ds.read<float, 2>(b);
                double s = 0;
                for (float f : v) s += f;
                return s;
            });
        const double got = chunkwise::reduce(pool, std::move(parts), std::plus<>{});
        double want = 0;
        for (float f : x) want += f;
        if (got != want) throw std::runtime_error("values read differ from those written");
        note("checks", "threaded read",
             "ok (2 threads, 8 blocks, deflate; decoded in the workers: " +
                 std::string(ds.decodes_in_worker<float>() ? "yes" : "no") + ")");
    } catch (const std::exception& e) {
        note("checks", "threaded read", "failed", e.what(),
             "see the message; run chunkwise-doctor on a local folder to compare");
    }
    std::error_code ec;
    std::filesystem::remove(file, ec);
}

/// Writes a small dataset of each chunk index type HDF5 writes into `dir`, and reports how
/// chunkwise's reads find its chunks (the file's index walked by each reader, or HDF5 under its
/// lock) and whether the values come back.
void index_types(const std::filesystem::path& dir) {
    namespace h5 = chunkwise::h5;
    struct kind {
        const char* name;
        bool latest;
        hsize_t max0, max1;  // 0: the extent
        hsize_t chunk0;
        bool early;
    };
    const kind kinds[] = {{"v1 B-tree", false, 0, 0, 4, false},
                          {"fixed array", true, 0, 0, 4, false},
                          {"extensible array", true, H5S_UNLIMITED, 0, 4, false},
                          {"v2 B-tree", true, H5S_UNLIMITED, H5S_UNLIMITED, 4, false},
                          {"single chunk", true, 0, 0, 64, false},
                          {"implicit", true, 0, 0, 4, true}};
    const auto file = dir / (".chunkwise-doctor-index-" + std::to_string(::getpid()) + ".h5");
    for (const kind& k : kinds) {
        std::string value;
        try {
            std::vector<float> v(64 * 8);
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.25f;
            {
                h5::library_lock lock;
                const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
                if (k.latest) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
                const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
                H5Pclose(fapl);
                const hsize_t dims[2] = {64, 8}, maxdims[2] = {k.max0 == 0 ? 64 : k.max0, k.max1 == 0 ? 8 : k.max1},
                              chunk[2] = {k.chunk0, 8};
                const hid_t space = H5Screate_simple(2, dims, maxdims);
                const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
                H5Pset_chunk(dcpl, 2, chunk);
                if (k.early) H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
                const hid_t d = f < 0 ? -1 : H5Dcreate2(f, "/x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
                const herr_t rc = d < 0 ? -1 : H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
                if (d >= 0) H5Dclose(d);
                H5Pclose(dcpl);
                H5Sclose(space);
                if (f >= 0) H5Fclose(f);
                if (rc < 0) throw std::runtime_error("HDF5 cannot write one here");
            }
            const h5::dataset ds(file.string(), "/x");
            const auto got = ds.read<float, 2>(chunkwise::block{0, 0, 64});
            if (!std::equal(got.begin(), got.end(), v.begin()))
                throw std::runtime_error("values read differ from those written");
            const std::string type = h5::chunk_index_type(ds);
            if (type != k.name)
                throw std::runtime_error(std::string("HDF5 wrote a ") + (type.empty() ? "other" : type) + " index");
            value = h5::chunk_locations(ds) == h5::chunk_source::file_index
                        ? "walked by each reader, no lock"
                        : "not walked (" +
                              std::string(std::getenv("CHUNKWISE_HDF5_INDEX") != nullptr
                                              ? "CHUNKWISE_HDF5_INDEX is set"
                                              : "chunkwise does not read it here") +
                              "): " + h5::describe(h5::chunk_locations(ds));
            note("chunk indexes", k.name, value);
        } catch (const std::exception& e) {
            note("chunk indexes", k.name, "failed", e.what(),
                 "see the message; run chunkwise-doctor on a local folder to compare");
        }
    }
    std::error_code ec;
    std::filesystem::remove(file, ec);
}

void print(bool json) {
    std::size_t problems = 0;
    for (const auto& f : found) problems += f.problem.empty() ? 0 : 1;
    if (json) {
        std::printf("{\n  \"findings\": [\n");
        for (std::size_t i = 0; i < found.size(); ++i) {
            const auto& f = found[i];
            std::printf("    {\"area\": %s, \"name\": %s, \"value\": %s, \"problem\": %s, \"fix\": %s}%s\n",
                        json_text(f.area).c_str(), json_text(f.name).c_str(), json_text(f.value).c_str(),
                        f.problem.empty() ? "null" : json_text(f.problem).c_str(),
                        f.fix.empty() ? "null" : json_text(f.fix).c_str(), i + 1 < found.size() ? "," : "");
        }
        std::printf("  ],\n  \"problems\": %zu\n}\n", problems);
        return;
    }
    std::string area;
    for (const auto& f : found) {
        if (f.area != area) std::printf("%s:\n", (area = f.area).c_str());
        std::printf("  %-18s %s\n", f.name.c_str(), f.value.c_str());
        if (!f.problem.empty()) std::printf("    PROBLEM: %s\n    FIX: %s\n", f.problem.c_str(), f.fix.c_str());
    }
    std::printf(problems == 0 ? "no problems found\n" : "%zu problem(s) found\n", problems);
}

}  // namespace

int main(int argc, char** argv) try {
    bool json = false;
    std::filesystem::path dir = std::filesystem::current_path();
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--json") {
            json = true;
        } else if (a == "--help" || a == "-h") {
            std::printf("usage: chunkwise-doctor [PATH] [--json]\n");
            return 0;
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "chunkwise-doctor: unknown option %s\nusage: chunkwise-doctor [PATH] [--json]\n",
                         a.c_str());
            return 2;
        } else {
            dir = a;
        }
    }
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    int rank = 0;
#if defined(CHUNKWISE_DOCTOR_MPI)
    // The level asked for is the one hybrid_policy asks for; CHUNKWISE_DOCTOR_REQUEST_LEVEL
    // (single, funneled, serialized, multiple) asks as another program would.
    const char* levels[] = {"single", "funneled", "serialized", "multiple"};
    const int level_ids[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    int request = 3;
    if (const char* r = std::getenv("CHUNKWISE_DOCTOR_REQUEST_LEVEL")) {
        for (int k = 0; k < 4; ++k) request = std::strcmp(r, levels[k]) == 0 ? k : request;
    }
    int provided = 0;
    MPI_Init_thread(&argc, &argv, level_ids[request], &provided);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int granted = 0;
    for (int k = 0; k < 4; ++k) granted = provided == level_ids[k] ? k : granted;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int len = 0;
    MPI_Get_library_version(lib, &len);
    std::string first_line(lib, static_cast<std::size_t>(len));
    first_line = first_line.substr(0, first_line.find_first_of("\n,"));
    note("mpi", "library", first_line + " (" + std::to_string(size) + " ranks)");
    if (granted < 1) {
        note("mpi", "thread level", std::string(levels[granted]) + " (asked: " + levels[request] + ")",
             std::string("MPI grants ") + levels[granted] + ": hybrid_policy's threads need at least funneled",
             "initialise MPI with MPI_Init_thread(MPI_THREAD_FUNNELED or more) (chunkwise's mpi_policy does), "
             "or use an MPI built with thread support");
    } else {
        note("mpi", "thread level", std::string(levels[granted]) + " (asked: " + levels[request] + ")");
    }
    const bool same = boost::mpi::environment::initialized();
    note("mpi", "Boost.MPI", same ? "sees the program's MPI" : "sees no MPI initialised",
         same ? "" : "Boost.MPI and the program were built against different MPI libraries",
         same ? "" : "rebuild Boost.MPI (or the program) against the MPI you run with");
#endif
    check_hdf5();
    check_codecs();
#if defined(CHUNKWISE_DOCTOR_MPI)
    {  // every rank's host line, gathered on rank 0 in rank order
        std::vector<finding> kept = std::move(found);
        found.clear();
        check_host(rank);
        const finding h = found.back();
        found = std::move(kept);
        const std::string mine = h.value + '\x1f' + h.problem + '\x1f' + h.fix;
        int n = static_cast<int>(mine.size());
        std::vector<int> lens(static_cast<std::size_t>(size)), at(static_cast<std::size_t>(size), 0);
        MPI_Gather(&n, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
        int total = 0;
        for (int r = 0; r < size; ++r) {
            at[static_cast<std::size_t>(r)] = total;
            total += rank == 0 ? lens[static_cast<std::size_t>(r)] : 0;
        }
        std::string all(static_cast<std::size_t>(total), '\0');
        MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), lens.data(), at.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int r = 0; rank == 0 && r < size; ++r) {
            const std::string line = all.substr(static_cast<std::size_t>(at[static_cast<std::size_t>(r)]),
                                                static_cast<std::size_t>(lens[static_cast<std::size_t>(r)]));
            const auto a = line.find('\x1f'), b = line.find('\x1f', a + 1);
            note("ranks", "rank " + std::to_string(r), line.substr(0, a), line.substr(a + 1, b - a - 1),
                 line.substr(b + 1));
        }
    }
#else
    check_host(rank);
#endif
    if (rank == 0 && check_path(dir)) {
        index_types(dir);
        small_read(dir);
    }
#if defined(CHUNKWISE_DOCTOR_MPI)
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (rank == 0) print(json);
    std::size_t problems = 0;
    for (const auto& f : found) problems += f.problem.empty() ? 0 : 1;
#if defined(CHUNKWISE_DOCTOR_MPI)
    MPI_Finalize();
#endif
    return problems == 0 ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "chunkwise-doctor: %s\n", e.what());
    return 2;
}
