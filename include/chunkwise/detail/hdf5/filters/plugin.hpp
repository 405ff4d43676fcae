#pragma once
// Internal: installed HDF5 filter plugins called in the reading thread, outside the lock, for
// filters chunkwise has no codec for (or, where CHUNKWISE_HDF5_PLUGIN_FIRST names them, instead
// of its codec). Only plugins on a list that tests have shown to be reentrant (ThreadSanitizer,
// 8 threads) and to fail cleanly on damaged chunks (AddressSanitizer, cut and damaged chunks):
// LZF (32000: Debian's hdf5-plugin-lzf and bitshuffle), and any the user adds in
// CHUNKWISE_HDF5_WORKER_PLUGINS (filter ids, comma-separated) after checking them so. Never with
// an HDF5 that is not thread-safe (a plugin may call HDF5 on an error). A plugin is found as HDF5
// finds it: in HDF5's plugin path (HDF5_PLUGIN_PATH, else its default folder), by the id its
// H5PLget_plugin_info states. Every other filter goes through H5Dread under the lock.
#include <chunkwise/detail/hdf5/codecs.hpp>

#include <hdf5.h>

#include <dirent.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// Filter ids listed in an environment variable ("32000,32099"); `fallback` where it is unset.
inline std::vector<int> filter_ids_from(const char* variable, std::vector<int> fallback) {
    const char* v = std::getenv(variable);
    if (v == nullptr) return fallback;
    std::vector<int> ids = fallback;
    for (const char* p = v; *p != '\0';) {
        char* end = nullptr;
        const long id = std::strtol(p, &end, 10);
        if (end != p && id > 0 && id < 65536) ids.push_back(static_cast<int>(id));
        p = (end != p && *end != '\0') ? end + 1 : (end != p ? end : p + 1);
    }
    return ids;
}

/// Whether filter `id`'s plugin may run in the worker (see above).
inline bool plugin_safe_in_worker(int id) {
    static const std::vector<int> safe = filter_ids_from("CHUNKWISE_HDF5_WORKER_PLUGINS", {32000});
    for (int s : safe) {
        if (s == id) return true;
    }
    return false;
}

/// Whether the plugin of filter `id` decodes it instead of chunkwise's codec
/// (CHUNKWISE_HDF5_PLUGIN_FIRST: for checking a plugin against the codec).
inline bool plugin_first(int id) {
    static const std::vector<int> first = filter_ids_from("CHUNKWISE_HDF5_PLUGIN_FIRST", {});
    for (int f : first) {
        if (f == id) return true;
    }
    return false;
}

/// Chunks decoded by plugins in the worker, process-wide (for tests).
inline std::atomic<std::uint64_t>& plugin_decodes() {
    static std::atomic<std::uint64_t> n{0};
    return n;
}

/// The decode function of the installed plugin of filter `id`, where it may run in the worker;
/// null otherwise. Plugins are opened once per process. Call with the library lock held.
inline H5Z_func_t worker_plugin(int id) {
    if (!plugin_safe_in_worker(id)) return nullptr;
    hbool_t threadsafe = false;
    if (H5is_library_threadsafe(&threadsafe) < 0 || !threadsafe) return nullptr;
    static std::mutex m;
    static std::map<int, H5Z_func_t> found;  // id -> function (null: none)
    std::lock_guard<std::mutex> guard(m);
    if (auto it = found.find(id); it != found.end()) return it->second;
    H5Z_func_t fn = nullptr;
    unsigned dirs = 0;
    if (H5PLsize(&dirs) < 0) dirs = 0;
    for (unsigned i = 0; i < dirs && fn == nullptr; ++i) {
        char path[4096] = {};
        if (H5PLget(i, path, sizeof path) <= 0) continue;
        DIR* d = ::opendir(path);
        if (d == nullptr) continue;
        std::vector<std::string> names;
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0) names.push_back(name);
        }
        ::closedir(d);
        std::sort(names.begin(), names.end());
        for (const auto& name : names) {
            void* lib = ::dlopen((std::string(path) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
            if (lib == nullptr) continue;
            using type_fn = H5PL_type_t (*)();
            using info_fn = const void* (*)();
            auto type = reinterpret_cast<type_fn>(::dlsym(lib, "H5PLget_plugin_type"));
            auto info = reinterpret_cast<info_fn>(::dlsym(lib, "H5PLget_plugin_info"));
            const auto* cls = (type != nullptr && info != nullptr && type() == H5PL_TYPE_FILTER)
                                  ? static_cast<const H5Z_class2_t*>(info())
                                  : nullptr;
            if (cls != nullptr && cls->id == id && cls->decoder_present != 0 && cls->filter != nullptr) {
                fn = cls->filter;  // kept open for the process
                break;
            }
            ::dlclose(lib);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    found[id] = fn;
    return fn;
}

/// Decodes [in, in + n) with a plugin's filter function into at most cap bytes at out; returns
/// the decoded size. The plugin gets its own malloc'd copy, which it may free and replace.
inline std::size_t plugin_decode(H5Z_func_t fn, const std::vector<unsigned>& cd, const unsigned char* in, std::size_t n,
                                 unsigned char* out, std::size_t cap) {
    std::size_t buf_size = n;
    void* buf = std::malloc(n > 0 ? n : 1);
    if (buf == nullptr) damaged("cannot allocate " + std::to_string(n) + " bytes for a filter plugin");
    if (n > 0) std::memcpy(buf, in, n);
    const std::size_t got = fn(H5Z_FLAG_REVERSE, cd.size(), cd.data(), n, &buf_size, &buf);
    if (got == 0 || got > cap) {
        std::free(buf);
        H5Eclear2(H5E_DEFAULT);  // what the plugin said, on this thread's stack (thread-safe HDF5)
        damaged(got == 0 ? std::string("the filter's plugin could not decode the chunk (corrupted?)")
                         : "the filter's plugin decodes the chunk to more than " + std::to_string(cap) + " bytes");
    }
    std::memcpy(out, buf, got);
    std::free(buf);
    plugin_decodes().fetch_add(1, std::memory_order_relaxed);
    return got;
}

}  // namespace chunkwise::h5::detail
