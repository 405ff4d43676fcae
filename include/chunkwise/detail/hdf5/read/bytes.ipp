// The definitions of chunkwise/detail/hdf5/read/bytes.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL void grow(std::vector<unsigned char>& v, std::size_t bytes, const dataset_state& s) {
    try {
        if (v.size() < bytes) v.resize(bytes);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(bytes) + " bytes to decode a chunk");
    }
}

CHUNKWISE_HDF5_DECL void stream_copy(unsigned char* dst, const unsigned char* src, std::size_t n) noexcept {
#if defined(__SSE2__)
    // Whole 64-byte lines only: a streamed line written in parts costs a read at the memory.
    const std::size_t head = std::min(n, (64 - reinterpret_cast<std::uintptr_t>(dst) % 64) % 64);
    std::memcpy(dst, src, head);
    const auto line = [](unsigned char* d, const unsigned char* s) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
    };
    constexpr std::size_t page = 4096;
    std::size_t i = head;
    for (; i + 4 * page <= n; i += 4 * page) {
        for (std::size_t j = 0; j < page; j += 64) {
            for (std::size_t p = 0; p < 4 * page; p += page) {
                _mm_prefetch(reinterpret_cast<const char*>(src + std::min(i + p + j + 256, n - 1)), _MM_HINT_T0);
                line(dst + i + p + j, src + i + p + j);
            }
        }
    }
    for (; i + 64 <= n; i += 64) line(dst + i, src + i);
    _mm_sfence();
    std::memcpy(dst + i, src + i, n - i);
#else
    std::memcpy(dst, src, n);
#endif
}

CHUNKWISE_HDF5_DECL bool copy_mapped(int fd, std::uint64_t address, unsigned char* dst, std::size_t bytes) noexcept {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) return false;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (address > size || bytes > size - address) return false;
    static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    for (std::size_t done = 0; done < bytes;) {
        const std::uint64_t at = address + done;
        const std::uint64_t base = at / page * page;
        const std::size_t skip = static_cast<std::size_t>(at - base);
        const std::size_t count = std::min(bytes - done, map_slice_bytes - skip);
        void* map = ::mmap(nullptr, skip + count, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(base));
        if (map == MAP_FAILED) return false;
        stream_copy(dst + done, static_cast<const unsigned char*>(map) + skip, count);
        ::munmap(map, skip + count);
        done += count;
    }
    map_setting::get().copies.fetch_add(1, std::memory_order_relaxed);
    return true;
}

CHUNKWISE_HDF5_DECL bool maps_into(const dataset_state& s, std::size_t output_bytes) {
    map_setting& m = map_setting::get();
    if (!m.invalid.empty()) {
        s.fail("CHUNKWISE_HDF5_MMAP='" + m.invalid +
               "': must be a byte count (the smallest block read through mappings of the file) or 'off'");
    }
    return output_bytes >= m.min_bytes.load(std::memory_order_relaxed) &&
           m.choice.load(std::memory_order_relaxed) != copy_choice::pread;
}

CHUNKWISE_HDF5_DECL bool mapped_measures_faster(int fd, std::uint64_t address, unsigned char* dst,
                                                std::size_t bytes) noexcept {
    using chunkwise::detail::clock;
    const std::size_t piece = std::min(bytes, std::size_t{8} << 20);
    const std::size_t rounds =
        std::clamp<std::size_t>((std::size_t{32} << 20) / std::max<std::size_t>(piece, 1), 3, 16);
    double best_pread = 1e300, best_mapped = 1e300;
    for (std::size_t r = 0; r <= rounds; ++r) {
        auto t0 = clock::now();
        if (chunkwise::detail::posix::pread_full(fd, dst, piece, address) != static_cast<std::ptrdiff_t>(piece))
            return false;
        const double p = chunkwise::detail::seconds_since(t0);
        t0 = clock::now();
        if (!copy_mapped(fd, address, dst, piece)) return false;
        const double m = chunkwise::detail::seconds_since(t0);
        if (r > 0) {  // round 0 warms both
            best_pread = std::min(best_pread, p);
            best_mapped = std::min(best_mapped, m);
        }
    }
    map_setting& s = map_setting::get();
    s.measured_pread_ns = static_cast<std::uint64_t>(best_pread * 1e9);
    s.measured_mapped_ns = static_cast<std::uint64_t>(best_mapped * 1e9);
    return best_mapped < 0.9 * best_pread;
}

CHUNKWISE_HDF5_DECL bool copy_through_mapping(int fd, std::uint64_t address, unsigned char* dst,
                                              std::size_t bytes) noexcept {
    map_setting& s = map_setting::get();
    copy_choice c = s.choice.load(std::memory_order_acquire);
    if (c == copy_choice::unmeasured && bytes >= (std::size_t{1} << 20) &&
        s.choice.compare_exchange_strong(c, copy_choice::measuring, std::memory_order_acq_rel)) {
        c = mapped_measures_faster(fd, address, dst, bytes) ? copy_choice::mapped : copy_choice::pread;
        s.choice.store(c, std::memory_order_release);
    }
    return c == copy_choice::mapped;
}

}  // namespace chunkwise::h5::detail
