#pragma once
/// \file
/// How block results are saved in and loaded from a checkpoint directory
/// (`run_options::checkpoint`), and `checkpoint_traits<T>`, the customization point for your
/// own result types.

#include <chunkwise/detail/block_identity.hpp>
#include <chunkwise/detail/value_kinds.hpp>
#include <chunkwise/error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace chunkwise {

/// A checkpoint that cannot be created, written or decoded (a chunkwise::error; what() starts with
/// "[chunkwise.checkpoint]").
class checkpoint_error : public error {
public:
    using error::error;
};

/// How a result type is saved in a checkpoint. Specialize it for your own types with three
/// static members:
///
///     template <> struct chunkwise::checkpoint_traits<my_result> {
///         static std::string type_name() { return "my_result/v1"; }          // stored, compared on load
///         static void save(const my_result& r, std::string& out);            // append bytes to out
///         static my_result load(std::string_view bytes);                     // inverse of save
///     };
///
/// Built in: arithmetic types, std::vector of them, std::string, std::monostate (void block
/// functions) and tensors such as xtensor arrays (shape(), data(), R::from_shape). A checkpoint
/// written for one type is never loaded as another: the type name is stored and compared.
template <class T, class Enable = void>
struct checkpoint_traits;

namespace detail {

template <class T>
std::string arithmetic_name() {
    if constexpr (std::is_floating_point_v<T>) {
        return "float" + std::to_string(sizeof(T) * 8);
    } else if constexpr (std::is_signed_v<T>) {
        return "int" + std::to_string(sizeof(T) * 8);
    } else {
        return "uint" + std::to_string(sizeof(T) * 8);
    }
}

template <class T>
void append_raw(std::string& out, const T* p, std::size_t n) {
    out.append(reinterpret_cast<const char*>(p), n * sizeof(T));
}

[[noreturn]] inline void bad_checkpoint(const std::string& what) {
    throw checkpoint_error("[chunkwise.checkpoint] " + what);
}

inline void need(std::string_view bytes, std::uint64_t n, const char* what) {
    if (bytes.size() < n) bad_checkpoint(std::string("too short for ") + what);
}

inline std::uint64_t read_u64(std::string_view& bytes) {
    need(bytes, 8, "a length");
    std::uint64_t v;
    std::memcpy(&v, bytes.data(), 8);
    bytes.remove_prefix(8);
    return v;
}

}  // namespace detail

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::plain_arithmetic<T>>> {
    static std::string type_name() { return detail::arithmetic_name<T>(); }
    static void save(const T& v, std::string& out) { detail::append_raw(out, &v, 1); }
    static T load(std::string_view bytes) {
        if (bytes.size() != sizeof(T)) detail::bad_checkpoint("holds a value of another size");
        T v;
        std::memcpy(&v, bytes.data(), sizeof(T));
        return v;
    }
};

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::arithmetic_vector<T>>> {
    using E = typename T::value_type;
    static std::string type_name() { return "vector<" + detail::arithmetic_name<E>() + ">"; }
    static void save(const T& v, std::string& out) { detail::append_raw(out, v.data(), v.size()); }
    static T load(std::string_view bytes) {
        if (bytes.size() % sizeof(E) != 0) detail::bad_checkpoint("holds a partial element");
        T v(bytes.size() / sizeof(E));
        if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::arithmetic_tensor<T>>> {
    using E = typename T::value_type;
    // Fixed-rank tensors (xtensor<T, N>) name their rank: a checkpoint of another rank is
    // recomputed, not failed; dynamic-rank ones (xarray) take any.
    static std::string type_name() {
        if constexpr (requires { std::tuple_size<typename T::shape_type>::value; }) {
            return "tensor<" + detail::arithmetic_name<E>() + "," +
                   std::to_string(std::tuple_size<typename T::shape_type>::value) + ">";
        } else {
            return "tensor<" + detail::arithmetic_name<E>() + ">";
        }
    }
    static void save(const T& v, std::string& out) {
        const auto& shape = v.shape();
        const std::uint64_t dims = std::size(shape);
        detail::append_raw(out, &dims, 1);
        for (const auto extent : shape) {
            const std::uint64_t e = static_cast<std::uint64_t>(extent);
            detail::append_raw(out, &e, 1);
        }
        detail::append_raw(out, v.data(), static_cast<std::size_t>(v.size()));
    }
    static T load(std::string_view bytes) {
        const std::uint64_t dims = detail::read_u64(bytes);
        typename T::shape_type shape{};
        if constexpr (requires { shape.resize(dims); }) shape.resize(dims);
        if (std::size(shape) != dims) detail::bad_checkpoint("holds a tensor of another rank");
        std::size_t count = 1;
        bool empty = false, overflow = false;
        for (std::size_t d = 0; d < dims; ++d) {
            const std::uint64_t e = detail::read_u64(bytes);
            shape[d] = static_cast<typename T::shape_type::value_type>(e);
            empty = empty || e == 0;
            overflow = overflow || __builtin_mul_overflow(count, static_cast<std::size_t>(e), &count);
        }
        if (empty) count = 0;
        if ((overflow && !empty) || count > bytes.size() / sizeof(E) || bytes.size() != count * sizeof(E)) {
            detail::bad_checkpoint("tensor data has the wrong size");
        }
        T v = T::from_shape(shape);
        if (count > 0) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

template <>
struct checkpoint_traits<std::string> {
    static std::string type_name() { return "string"; }
    static void save(const std::string& v, std::string& out) { out += v; }
    static std::string load(std::string_view bytes) { return std::string(bytes); }
};

template <>
struct checkpoint_traits<std::monostate> {
    static std::string type_name() { return "none"; }
    static void save(const std::monostate&, std::string&) {}
    static std::monostate load(std::string_view bytes) {
        if (!bytes.empty()) detail::bad_checkpoint("of a void block holds data");
        return {};
    }
};

/// A type with a usable checkpoint_traits specialization.
template <class T>
concept checkpointable = requires(const T& v, std::string& out, std::string_view in) {
    { checkpoint_traits<T>::type_name() } -> std::convertible_to<std::string>;
    checkpoint_traits<T>::save(v, out);
    { checkpoint_traits<T>::load(in) } -> std::convertible_to<T>;
};

namespace detail {

/// One block's results in a checkpoint directory: a file per block, written to a temporary
/// name, fsync'ed and renamed, so a reader sees a whole file or none. A file records the result
/// type, the block's key and description, and a checksum; a file that disagrees with any of them
/// is never used.
///
/// File: "chunkwise-checkpoint 1\n" header-length header payload-length payload checksum, where
/// header = "type=...\nkey=...\nblock=...\n" and the checksum is FNV-1a over header and payload.
class checkpoint_store {
public:
    explicit checkpoint_store(std::filesystem::path dir) : dir_(std::move(dir)) {
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec || !std::filesystem::is_directory(dir_)) {
            throw checkpoint_error("[chunkwise.checkpoint] cannot create the checkpoint directory " + dir_.string() +
                                   (ec ? ": " + ec.message() : std::string()));
        }
    }

    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

    [[nodiscard]] std::filesystem::path file_for(const std::string& key) const {
        return dir_ / ("block-" + key + ".ckpt");
    }

    /// The stored bytes of block `key`, if a valid checkpoint of this type and block exists.
    [[nodiscard]] std::optional<std::string> load(const std::string& key, const std::string& type,
                                                  const std::string& block) const {
        std::ifstream in(file_for(key), std::ios::binary | std::ios::ate);
        if (!in) return std::nullopt;
        const std::streamoff size = in.tellg();
        if (size <= 0) return std::nullopt;
        std::string all(static_cast<std::size_t>(size), '\0');
        in.seekg(0);
        if (!in.read(all.data(), size)) return std::nullopt;
        std::string_view v(all);
        const std::string_view magic = "chunkwise-checkpoint 1\n";
        if (v.substr(0, magic.size()) != magic) return std::nullopt;
        v.remove_prefix(magic.size());
        try {
            const std::uint64_t hlen = read_u64(v);
            need(v, hlen, "the header");
            const std::string_view header = v.substr(0, hlen);
            v.remove_prefix(hlen);
            const std::uint64_t plen = read_u64(v);
            need(v, plen, "the payload");  // then 8 bytes of checksum: no plen + 8 that could wrap
            need(v.substr(static_cast<std::size_t>(plen)), 8, "the checksum");
            const std::string_view payload = v.substr(0, plen);
            v.remove_prefix(plen);
            const std::uint64_t sum = read_u64(v);
            if (!v.empty() || sum != fnv1a(payload, fnv1a(header))) return std::nullopt;
            if (header != make_header(type, key, block)) return std::nullopt;
            return std::string(payload);
        } catch (const checkpoint_error&) {
            return std::nullopt;
        }
    }

    /// Atomically replaces block `key`'s checkpoint: write, fdatasync, rename, fsync the directory.
    void save(const std::string& key, const std::string& type, const std::string& block,
              const std::string& payload) const {
        const std::string header = make_header(type, key, block);
        std::string all = "chunkwise-checkpoint 1\n";
        const std::uint64_t hlen = header.size(), plen = payload.size(), sum = fnv1a(payload, fnv1a(header));
        append_raw(all, &hlen, 1);
        all += header;
        append_raw(all, &plen, 1);
        all += payload;
        append_raw(all, &sum, 1);

        static std::atomic<unsigned> counter{0};
        const auto final_path = file_for(key);
        const auto tmp = dir_ / (".block-" + key + ".tmp." + std::to_string(::getpid()) + "." +
                                 std::to_string(counter.fetch_add(1)));
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fail("cannot create " + tmp.string());
        std::size_t done = 0;
        while (done < all.size()) {
            const ssize_t w = ::write(fd, all.data() + done, all.size() - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                const int e = errno;
                ::close(fd);
                ::unlink(tmp.c_str());
                errno = e;
                fail("cannot write " + tmp.string());
            }
            done += static_cast<std::size_t>(w);
        }
#if defined(__APPLE__)
        if (::fsync(fd) != 0) {  // macOS has no fdatasync
#else
        if (::fdatasync(fd) != 0) {  // the data and its size are on disk before the rename
#endif
            const int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            errno = e;
            fail("cannot sync " + tmp.string());
        }
        ::close(fd);
        if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
            const int e = errno;
            ::unlink(tmp.c_str());
            errno = e;
            fail("cannot rename to " + final_path.string());
        }
        const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
    }

private:
    static std::string make_header(const std::string& type, const std::string& key, const std::string& block) {
        return "type=" + type + "\nkey=" + key + "\nblock=" + block + "\n";
    }
    [[noreturn]] static void fail(const std::string& what) {
        throw checkpoint_error("[chunkwise.checkpoint] " + what + ": " + std::strerror(errno));
    }

    std::filesystem::path dir_;
};

}  // namespace detail
}  // namespace chunkwise
