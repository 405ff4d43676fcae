// The definitions of chunkwise/detail/hdf5/read/run_plan.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL plan_runner::plan_runner(const dataset_state& s, const chunk_plan& p, const output_ops& t,
                                             unsigned char* out)
        : s_(s),
          p_(p),
          t_(t),
          out_(out),
          n_(p.n),
          esize_(s.element_bytes),
          c_(p.c_lo),
          off_(n_),
          blo_(n_),
          bhi_(n_),
          dst_lo_(n_),
          rel_lo_(n_),
          rel_hi_(n_),
          sub_shape_(n_),
          buf_(scratch::mine()) {}

CHUNKWISE_HDF5_DECL auto plan_runner::run() -> void {
    for (std::size_t k = 0; k < p_.locations.size(); ++k) {
        if (k >= merged_until_) step(k);
        next_chunk();
    }
    buf_.trim();
}

CHUNKWISE_HDF5_DECL auto plan_runner::next_chunk() -> void {
    for (std::size_t d = n_; d-- > 0;) {
        if (++c_[d] <= p_.c_hi[d]) break;
        c_[d] = p_.c_lo[d];
    }
}

CHUNKWISE_HDF5_DECL auto plan_runner::step(std::size_t k) -> void {
    const chunk_location& loc = p_.locations[k];
    for (std::size_t d = 0; d < n_; ++d) {
        off_[d] = c_[d] * s_.chunk[d];
        blo_[d] = std::max(off_[d], p_.lo[d]);
        bhi_[d] = std::min(off_[d] + s_.chunk[d], p_.hi[d]);
        dst_lo_[d] = blo_[d] - p_.lo[d];
        rel_lo_[d] = blo_[d] - off_[d];
        rel_hi_[d] = bhi_[d] - off_[d];
    }
    switch (p_.actions[k]) {
        case chunk_action::woven:
            break;  // done with the first of its group
        case chunk_action::weave:
            weave(k);
            break;
        case chunk_action::fill:
            t_.fill(s_, blo_.data(), bhi_.data(), out_, p_.out_shape.data(), dst_lo_.data());
            break;
        case chunk_action::short_stored:
            // HDF5 reads the chunk's size from this address: past the stored bytes it returns
            // whatever its buffer held (not reproducible), so refuse rather than guess.
            s_.fail("chunk at " + where() + " is stored in " + std::to_string(loc.size) +
                    (loc.size < s_.chunk_bytes ? " bytes, fewer than its " : " bytes, more than its ") +
                    std::to_string(s_.chunk_bytes) +
                    " (written short with write_direct_chunk, or corrupted); its other values are undefined");
        case chunk_action::copy:
            copy(k);
            break;
        case chunk_action::too_large:
            s_.fail("chunk at " + where() + " is stored in " + std::to_string(loc.size) +
                    " bytes, more than its filters make of " + std::to_string(s_.chunk_bytes) + " at worst (" +
                    std::to_string(max_stored_of(s_)) + "; corrupted?)");
        case chunk_action::decode:
            decode(k);
            break;
    }
}

CHUNKWISE_HDF5_DECL auto plan_runner::rows_as_chunk(std::size_t rows) -> void {
    sub_shape_ = s_.chunk;
    sub_shape_[0] = rows;
    rel_hi_[0] = rows;
    rel_lo_[0] = 0;
}

CHUNKWISE_HDF5_DECL auto plan_runner::weave(std::size_t k) -> void {
    const std::size_t ways = p_.ways;
    const std::size_t rows = rel_hi_[0] - rel_lo_[0];
    const std::size_t skip = rel_lo_[0] * p_.inner * esize_;
    grow(buf_.c, ways * s_.chunk_bytes, s_);
    const unsigned char* planes[interleave_most];
    for (std::size_t j = 0; j < ways; ++j) {
        const chunk_location& lj = p_.locations[k + j];
        off_[n_ - 1] = j;
        unsigned char* slot = buf_.c.data() + j * s_.chunk_bytes;
        if (!is_filtered(s_, lj)) {
            pread_all(s_, lj.fd, lj.address + skip, slot, rows * p_.inner * esize_, what());
        } else {
            grow(buf_.a, static_cast<std::size_t>(lj.size), s_);
            pread_all(s_, lj.fd, lj.address, buf_.a.data(), static_cast<std::size_t>(lj.size), what());
            (void)decode_chunk(s_, buf_, static_cast<std::size_t>(lj.size), lj.mask, off_.data(), slot);
            slot += skip;
        }
        planes[j] = slot;
    }
    off_[n_ - 1] = 0;
    rows_as_chunk(rows);
    t_.interleave(planes, ways, sub_shape_.data(), rel_lo_.data(), rel_hi_.data(), out_, p_.out_shape.data(),
                  dst_lo_.data(), n_);
    woven_groups().fetch_add(1, std::memory_order_relaxed);
}

CHUNKWISE_HDF5_DECL auto plan_runner::copy(std::size_t k) -> void {
    const chunk_location& loc = p_.locations[k];
    const std::size_t rows = rel_hi_[0] - rel_lo_[0];
    const std::uint64_t at = loc.address + static_cast<std::uint64_t>(rel_lo_[0]) * p_.inner * esize_;
    if (!p_.direct) {
        grow(buf_.a, rows * p_.inner * esize_, s_);
        pread_all(s_, loc.fd, at, buf_.a.data(), rows * p_.inner * esize_, what());
        rows_as_chunk(rows);
        t_.place(s_, buf_, buf_.a.data(), sub_shape_.data(), rel_lo_.data(), rel_hi_.data(), out_, p_.out_shape.data(),
                 dst_lo_.data());
        return;
    }
    // Whole-row chunks that follow this one in the file as in the output (written in order):
    // one read for all of them.
    std::size_t bytes = rows * p_.inner * esize_, last = k, row_end = bhi_[0];
    while (last + 1 < p_.locations.size() && p_.actions[last + 1] == chunk_action::copy &&
           p_.locations[last + 1].fd == loc.fd && p_.locations[last + 1].address == at + bytes &&
           bytes <= (std::size_t{1} << 30)) {
        const std::size_t more = std::min(row_end + s_.chunk[0], p_.hi[0]) - row_end;
        bytes += more * p_.inner * esize_;
        row_end += more;
        ++last;
    }
    merged_until_ = last + 1;
    read_all(s_, loc.fd, at, out_ + dst_lo_[0] * p_.out_row * t_.size, bytes, p_.mapped, what());
}

CHUNKWISE_HDF5_DECL auto plan_runner::stage_run(std::size_t k) -> void {
    const chunk_location& loc = p_.locations[k];
    std::uint64_t end = loc.address + loc.size, stored = loc.size;
    std::size_t last = k;
    while (last + 1 < p_.locations.size() && p_.actions[last + 1] == chunk_action::decode) {
        const chunk_location& next = p_.locations[last + 1];
        if (next.fd != loc.fd || next.address < end || next.address - end > coalesce_gap_bytes ||
            next.address + next.size - loc.address > coalesce_most_bytes) {
            break;
        }
        end = next.address + next.size;
        stored += next.size;
        ++last;
    }
    if (last == k) return;
    const auto run = static_cast<std::size_t>(end - loc.address);
    grow(buf_.run, run, s_);
    ++thread_preads();
    const std::ptrdiff_t got = chunkwise::detail::posix::pread_full(loc.fd, buf_.run.data(), run, loc.address);
    if (got == static_cast<std::ptrdiff_t>(run)) {
        chunkwise::detail::thread_read_bytes += static_cast<double>(stored);  // the chunks', not the gaps'
        staged_from_ = loc.address;
        staged_until_ = last + 1;
    }
}

CHUNKWISE_HDF5_DECL auto plan_runner::decode(std::size_t k) -> void {
    const chunk_location& loc = p_.locations[k];
    if (k >= staged_until_) stage_run(k);
    const unsigned char* input = nullptr;
    if (k < staged_until_) {
        input = buf_.run.data() + (loc.address - staged_from_);
    } else {
        grow(buf_.a, static_cast<std::size_t>(loc.size), s_);
        pread_all(s_, loc.fd, loc.address, buf_.a.data(), static_cast<std::size_t>(loc.size), what());
    }
    const bool whole = rel_lo_[0] == 0 && rel_hi_[0] == s_.chunk[0];
    const bool swapped = p_.swapped && whole && unshuffles_last(s_, loc.mask);
    const bool whole_chunk = (p_.direct && whole) || swapped;
    unsigned char* into = whole_chunk ? out_ + dst_lo_[0] * p_.out_row * t_.size : nullptr;
    const unsigned char* bytes =
        decode_chunk(s_, buf_, static_cast<std::size_t>(loc.size), loc.mask, off_.data(), into, input, swapped);
    if (!whole_chunk) {
        t_.place(s_, buf_, bytes, s_.chunk.data(), rel_lo_.data(), rel_hi_.data(), out_, p_.out_shape.data(),
                 dst_lo_.data());
    }
}

}  // namespace chunkwise::h5::detail
