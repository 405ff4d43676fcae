#pragma once
// Internal: a read-only HDF5 file driver (VFD) through which chunkwise opens every file it reads.
// It reads like HDF5's default driver (sec2: pread, zeros past the end of the file), with one
// addition: while a probe is active on the calling thread, a raw-data read is not performed but
// recorded (file, address, size). `H5Dread_chunk` under a probe therefore tells where a chunk's
// stored bytes are and how many HDF5 would read, after one lookup in the chunk index and without
// copying them; chunkwise then reads them with pread outside the library lock. This is how the
// addresses are learnt on HDF5 1.10, whose `H5Dget_chunk_info*` take time proportional to the
// number of chunks per call. Files reached through external links are opened through the same
// driver (HDF5 gives them the parent's file access properties), so the probe names the file a
// chunk really lives in.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>
#if __has_include(<H5FDdevelop.h>)
#include <H5FDdevelop.h>  // HDF5 >= 1.13: H5FD_class_t moved here
#endif

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace chunkwise::h5::detail {

/// One file open through the probe driver. HDF5 owns `pub`; the rest is ours.
struct probe_file {
    H5FD_t pub;  // must come first: HDF5 sees a pointer to it
    int fd = -1;
    haddr_t eoa = 0;
    haddr_t eof = 0;
    dev_t device = 0;
    ino_t inode = 0;
};

/// What one probe saw: the raw-data reads HDF5 asked for while it was active.
struct probe_record {
    int reads = 0;
    haddr_t address = HADDR_UNDEF;
    std::size_t size = 0;
    const probe_file* file = nullptr;
};

/// The probe active on this thread (set by probe_scope; only under the library lock).
inline thread_local probe_record* active_probe = nullptr;

/// Makes raw-data reads on this thread be recorded into `r` instead of performed.
class probe_scope {
public:
    explicit probe_scope(probe_record& r) noexcept : previous_(active_probe) { active_probe = &r; }
    ~probe_scope() { active_probe = previous_; }
    probe_scope(const probe_scope&) = delete;
    probe_scope& operator=(const probe_scope&) = delete;

private:
    probe_record* previous_;
};

struct probe_driver {
    static H5FD_t* open(const char* name, unsigned flags, hid_t /*fapl*/, haddr_t /*maxaddr*/) {
        if ((flags & (H5F_ACC_RDWR | H5F_ACC_CREAT | H5F_ACC_TRUNC | H5F_ACC_EXCL)) != 0) return nullptr;
        const int fd = ::open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return nullptr;
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            ::close(fd);
            return nullptr;
        }
        auto* f = new (std::nothrow) probe_file{};
        if (f == nullptr) {
            ::close(fd);
            return nullptr;
        }
        f->fd = fd;
        f->eof = static_cast<haddr_t>(st.st_size);
        f->device = st.st_dev;
        f->inode = st.st_ino;
        return &f->pub;
    }
    static herr_t close(H5FD_t* file) {
        auto* f = reinterpret_cast<probe_file*>(file);
        const int rc = ::close(f->fd);
        delete f;
        return rc == 0 ? 0 : -1;
    }
    static int cmp(const H5FD_t* a, const H5FD_t* b) {
        const auto* x = reinterpret_cast<const probe_file*>(a);
        const auto* y = reinterpret_cast<const probe_file*>(b);
        if (x->device != y->device) return x->device < y->device ? -1 : 1;
        if (x->inode != y->inode) return x->inode < y->inode ? -1 : 1;
        return 0;
    }
    static herr_t query(const H5FD_t*, unsigned long* flags) {
        *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
                 H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE | H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
        return 0;
    }
    static haddr_t get_eoa(const H5FD_t* file, H5FD_mem_t) { return reinterpret_cast<const probe_file*>(file)->eoa; }
    static herr_t set_eoa(H5FD_t* file, H5FD_mem_t, haddr_t addr) {
        reinterpret_cast<probe_file*>(file)->eoa = addr;
        return 0;
    }
    static haddr_t get_eof(const H5FD_t* file, H5FD_mem_t) { return reinterpret_cast<const probe_file*>(file)->eof; }
    static herr_t get_handle(H5FD_t* file, hid_t, void** out) {
        *out = &reinterpret_cast<probe_file*>(file)->fd;
        return 0;
    }
    static herr_t read(H5FD_t* file, H5FD_mem_t type, hid_t, haddr_t addr, std::size_t size, void* buffer) {
        auto* f = reinterpret_cast<probe_file*>(file);
        if (probe_record* p = active_probe; p != nullptr && type == H5FD_MEM_DRAW) {
            ++p->reads;
            p->address = addr;
            p->size = size;
            p->file = f;
            return 0;
        }
        auto* out = static_cast<unsigned char*>(buffer);
        const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(f->fd, out, size, addr);
        if (got < 0) return -1;
        // Past the end of the file: zeros, as HDF5's own driver gives.
        std::memset(out + got, 0, size - static_cast<std::size_t>(got));
        return 0;
    }
    static herr_t write(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, std::size_t, const void*) { return -1; }
    static herr_t truncate(H5FD_t*, hid_t, hbool_t) { return 0; }
    static herr_t lock(H5FD_t* file, hbool_t) {
        // A shared lock, as HDF5's own driver takes for reading; file systems without flock pass.
        if (::flock(reinterpret_cast<probe_file*>(file)->fd, LOCK_SH | LOCK_NB) == 0) return 0;
        return errno == ENOSYS || errno == ENOLCK || errno == EOPNOTSUPP ? 0 : -1;
    }
    static herr_t unlock(H5FD_t* file) {
        ::flock(reinterpret_cast<probe_file*>(file)->fd, LOCK_UN);
        return 0;
    }

    static const H5FD_class_t& cls() {
        static const H5FD_class_t c = [] {
            H5FD_class_t k{};
#if defined(H5FD_CLASS_VERSION)
            k.version = H5FD_CLASS_VERSION;
            k.value = static_cast<H5FD_class_value_t>(0x1c7);  // in 256..511, the range HDF5 leaves to user drivers
#endif
            k.name = "chunkwise_probe";
            k.maxaddr = static_cast<haddr_t>(0x7fffffffffffffffLL);
            k.fc_degree = H5F_CLOSE_WEAK;
            k.open = &probe_driver::open;
            k.close = &probe_driver::close;
            k.cmp = &probe_driver::cmp;
            k.query = &probe_driver::query;
            k.get_eoa = &probe_driver::get_eoa;
            k.set_eoa = &probe_driver::set_eoa;
            k.get_eof = &probe_driver::get_eof;
            k.get_handle = &probe_driver::get_handle;
            k.read = &probe_driver::read;
            k.write = &probe_driver::write;
            k.truncate = &probe_driver::truncate;
            k.lock = &probe_driver::lock;
            k.unlock = &probe_driver::unlock;
            for (auto& m : k.fl_map) m = H5FD_MEM_DEFAULT;
            return k;
        }();
        return c;
    }

    /// Why the driver is not used ("" when it is): HDF5's driver interface (the H5FD_class_t
    /// chunkwise fills in) is one this code was written for, the library loaded is of the series
    /// compiled against (the struct's layout changes between series), and CHUNKWISE_HDF5_PROBE
    /// is not `off`. Without the driver, chunk locations come from H5Dchunk_iter where HDF5 has
    /// it, else reads go through H5Dread.
    static const std::string& unused_because() {
        static const std::string why = [] {
            const char* env = std::getenv("CHUNKWISE_HDF5_PROBE");
            if (env != nullptr && std::strcmp(env, "off") == 0) return std::string("CHUNKWISE_HDF5_PROBE=off");
#if defined(H5FD_CLASS_VERSION)
            if (H5FD_CLASS_VERSION != known_class_version)
                return "HDF5's file driver interface is version " + std::to_string(H5FD_CLASS_VERSION) +
                       ", not the one chunkwise knows (" + std::to_string(known_class_version) + ")";
#endif
            unsigned major = 0, minor = 0, release = 0;
            H5get_libversion(&major, &minor, &release);
            if (major != H5_VERS_MAJOR || minor != H5_VERS_MINOR)
                return "HDF5 " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) +
                       " is loaded, but chunkwise was compiled against " + std::to_string(H5_VERS_MAJOR) + "." +
                       std::to_string(H5_VERS_MINOR) + "." + std::to_string(H5_VERS_RELEASE);
            return std::string();
        }();
        return why;
    }
    /// The H5FD_class_t version the driver is written for (HDF5 1.14 to 2.x); 1.10 and 1.12 have none.
    static constexpr int known_class_version = 0x01;

    /// The driver's id, registered on first use (again after an H5close); negative where it is
    /// not used (see unused_because). Call with the lock held.
    static hid_t id() {
        if (!unused_because().empty()) return H5I_INVALID_HID;
        static hid_t registered = H5I_INVALID_HID;
        if (registered < 0 || H5Iis_valid(registered) <= 0) {
            registered = H5FDregister(&cls());
            H5Eclear2(H5E_DEFAULT);
        }
        return registered;
    }
};

/// A file access property list that opens files through the probe driver; invalid if the driver
/// cannot be registered (then callers use HDF5's default driver). Call with the lock held.
CHUNKWISE_HDF5_DECL handle probe_fapl();

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/probe_driver.ipp>
#endif
