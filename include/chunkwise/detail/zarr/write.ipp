// The definitions of chunkwise/detail/zarr/write.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL encoding make_encoding(const codecs::write_codec& w, bool shuffle, std::size_t item,
                                           std::size_t chunk_bytes) {
    encoding e;
    e.pipe = codecs::make_pipeline(w.main, w.option, w.level, shuffle, item, chunk_bytes);
    e.item = item;
    for (const auto& [c, r] : e.pipe) {
        if (c == w.main) {
            e.main = c;
            e.request = r;
        } else {
            e.shuffle_filter = true;
        }
    }
    return e;
}

CHUNKWISE_ZARR_DECL void file_remover::remove(std::string path) {
    {
        std::lock_guard<std::mutex> hold(m_);
        while (threads_.size() < wanted_ && !closing_) {
            try {
                threads_.emplace_back([this] { run(); });
            } catch (const std::system_error&) {
                if (threads_.empty()) closing_ = true;  // no thread to be had: every removal at once
                break;
            }
        }
        if (!closing_) {
            const bool idle = queue_.empty();  // else the threads are awake, and take this one too
            queue_.push_back(std::move(path));
            if (idle) cv_.notify_one();
            return;
        }
    }
    ::unlink(path.c_str());
}

CHUNKWISE_ZARR_DECL void file_remover::run() noexcept {
    std::unique_lock<std::mutex> hold(m_);
    for (;;) {
        cv_.wait(hold, [this] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;  // closing, and nothing left
        const std::string path = std::move(queue_.front());
        queue_.pop_front();
        if (!queue_.empty()) cv_.notify_one();  // another thread takes the next
        hold.unlock();
        ::unlink(path.c_str());
        hold.lock();
    }
}

CHUNKWISE_ZARR_DECL void file_remover::finish() noexcept {
    {
        std::lock_guard<std::mutex> hold(m_);
        closing_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
    for (const std::string& path : queue_) ::unlink(path.c_str());  // none where a thread ran to its end
    queue_.clear();
}

CHUNKWISE_ZARR_DECL const removal_setting& removal_threads() {
    static const removal_setting setting = [] {
        removal_setting s;
        const char* text = std::getenv("CHUNKWISE_ZARR_REMOVERS");
        if (text == nullptr) return s;
        if (const auto n = chunkwise::detail::env_count(text, 0, 16))
            s.threads = static_cast<unsigned>(*n);
        else
            s.invalid = *text == '\0' ? "(empty)" : text;
        return s;
    }();
    return setting;
}

CHUNKWISE_ZARR_DECL file_remover*& deferred_removals() noexcept {
    thread_local file_remover* here = nullptr;
    return here;
}

CHUNKWISE_ZARR_DECL bool replace_file(const std::string& tmp, const std::string& target) {
#ifdef RENAME_EXCHANGE
    // Over a file that exists, swap the two names atomically and drop the old file: readers see the old
    // chunk or the new one, as with rename, but ext4 does not write the new file back at once, as it does
    // when a rename replaces a file (auto_da_alloc).
    struct stat st {};
    if (::lstat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
        if (file_remover* later = deferred_removals())  // now the old file
            later->remove(tmp);
        else
            ::unlink(tmp.c_str());
        return true;
    }
    // No regular file to swap with, or a file system without the exchange: a plain rename.
#endif
    return std::rename(tmp.c_str(), target.c_str()) == 0;
}

CHUNKWISE_ZARR_DECL void write_file(const std::string& store, const std::string& key, const unsigned char* data,
                                    std::size_t n) {
    namespace fs = std::filesystem;
    namespace posix = chunkwise::detail::posix;
    const fs::path target = fs::path(store) / key;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    static std::atomic<unsigned long> serial{0};
    const std::string tmp = target.string() + ".partial." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    posix::open_outcome how{};
    const int fd = posix::open_regular(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644, how);
    if (fd < 0) {
        throw error(store, key,
                    std::string("cannot be written: ") +
                        (how == posix::open_outcome::not_regular ? "not a regular file" : std::strerror(errno)));
    }
    std::string problem;
    if (!posix::write_all(fd, data, n)) problem = std::string("cannot be written: ") + std::strerror(errno);
    if (::close(fd) != 0 && problem.empty()) problem = std::string("cannot be written: ") + std::strerror(errno);
    if (problem.empty() && !replace_file(tmp, target))
        problem = std::string("cannot be renamed into place: ") + std::strerror(errno);
    if (!problem.empty()) {
        ::unlink(tmp.c_str());
        throw error(store, key, problem);
    }
}

CHUNKWISE_ZARR_DECL store_content content_of(const std::string& store) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto st = fs::status(store, ec);
    if (!fs::exists(st)) return store_content::empty;
    if (!fs::is_directory(st)) throw error(store, "", "is a file, not a directory store");
    bool empty = true, zarr = false, marker = false;
    for (const auto& e : fs::directory_iterator(store, ec)) {
        const std::string n = e.path().filename().string();
        if (n == lock_file) continue;  // its writers' lock: no content
        empty = false;
        if (n == ".zarray" || n == "zarr.json" || n == ".zgroup") zarr = true;
        if (n == unfinished_marker) marker = true;
    }
    if (ec) throw error(store, "", "cannot be listed: " + ec.message());
    return empty    ? store_content::empty
           : zarr   ? store_content::zarr
           : marker ? store_content::unfinished
                    : store_content::foreign;
}

CHUNKWISE_ZARR_DECL void clear_store(const std::string& store, bool remove_dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (remove_dir) {
        fs::remove_all(store, ec);
        if (ec) throw error(store, "", "cannot be removed: " + ec.message());
        return;
    }
    for (const auto& e : fs::directory_iterator(store, ec)) {
        if (e.path().filename() == lock_file) continue;  // held by this write, perhaps waited on by another
        fs::remove_all(e.path(), ec);
        if (ec)
            throw error(store, "",
                        "cannot remove the old array's " + e.path().filename().string() + ": " + ec.message());
    }
}

CHUNKWISE_ZARR_DECL void store_lock::open(const std::string& store) {
    store_ = store;
    release();
    const std::string file = (std::filesystem::path(store) / lock_file).string();
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
        throw error(store, "", std::string("its lock file .chunkwise-lock cannot be opened: ") + std::strerror(errno));
}

CHUNKWISE_ZARR_DECL store_lock::~store_lock() { release(); }

CHUNKWISE_ZARR_DECL void store_lock::release() noexcept {
    if (fd_ >= 0) ::close(fd_);  // every lock of this descriptor released
    fd_ = -1;
}  // every lock of this descriptor released

CHUNKWISE_ZARR_DECL void store_lock::lock(std::uint64_t slot, bool exclusive) {
    struct flock range {};
    range.l_type = exclusive ? F_WRLCK : F_RDLCK;
    range.l_whence = SEEK_SET;
    range.l_start = static_cast<off_t>(slot);
    range.l_len = 1;
    while (::fcntl(fd_, F_OFD_SETLKW, &range) != 0) {
        if (errno != EINTR)
            throw error(store_, "",
                        std::string("its lock file .chunkwise-lock cannot be locked: ") + std::strerror(errno));
    }
}

CHUNKWISE_ZARR_DECL void store_lock::unlock(std::uint64_t slot) noexcept {
    struct flock range {};
    range.l_type = F_UNLCK;
    range.l_whence = SEEK_SET;
    range.l_start = static_cast<off_t>(slot);
    range.l_len = 1;
    (void)::fcntl(fd_, F_OFD_SETLK, &range);
}

// The text of a shape, "[2, 3]".
CHUNKWISE_ZARR_DECL bool prepare_store(const std::string& store, write_mode mode, store_lock& hold) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (mode == write_mode::append || mode == write_mode::update)
        throw error(store, "",
                    std::string("write_mode::") + mode_name(mode) +
                        " writes into the array there: no store is prepared for it");
    const auto refuse_foreign = [&](store_content c) {
        if (c == store_content::foreign)
            throw error(store, "", "exists and holds files that are not a Zarr array: not overwritten");
    };
    refuse_foreign(content_of(store));  // before anything is made there (a file there is refused too)
    const bool created = !fs::exists(store, ec);
    fs::create_directories(store, ec);
    if (ec) throw error(store, "", "cannot be created: " + ec.message());
    hold.open(store);
    hold.lock(0, true);  // a second writer of this store waits here, and then finds what the first made
    const store_content c = content_of(store);
    refuse_foreign(c);
    if (c == store_content::zarr && mode == write_mode::create)
        throw error(store, "",
                    "holds a Zarr array or group already: not overwritten (write_mode::create; "
                    "ask for write_mode::replace to replace it)");
    if (c != store_content::empty) clear_store(store, false);
    const std::string note = "a chunkwise write of this store began and has not finished\n";
    write_file(store, unfinished_marker, reinterpret_cast<const unsigned char*>(note.data()), note.size());
    return created;
}

CHUNKWISE_ZARR_DECL void finish_store(const std::string& store, const std::string& name, const std::string& text) {
    write_file(store, name, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(store) / unfinished_marker, ec);
    chunkwise::detail::posix::sync_dir(store);
}

CHUNKWISE_ZARR_DECL json codec_entry(const codecs::codec& c, const codecs::encode_request& r, int format) {
    const json config = json::parse("{" + (c.zarr_config != nullptr ? c.zarr_config(r, format) : std::string()) + "}");
    if (format == 2) {
        json e = {{"id", c.zarr_v2}};
        e.update(config);
        return e;
    }
    json e = {{"name", c.zarr_v3}};
    if (!config.empty()) e["configuration"] = config;
    return e;
}

}  // namespace chunkwise::zarr::detail
