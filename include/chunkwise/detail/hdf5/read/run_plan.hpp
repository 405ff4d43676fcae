#pragma once
// Internal: a chunk plan run outside the lock (plans: read/chunked.hpp): every chunk's bytes read
// (pread, a mapped copy, or one pread for a run of chunks next to each other in the file) and
// decoded in the calling thread, each action of the plan a step of `plan_runner`; and
// `read_chunked`, which plans a box of a chunked dataset and runs the plan (or has H5Dread read it).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/chunked.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// Runs one chunk plan into out (values of `t`, extent p.out_shape), chunk by chunk in the
/// plan's order: the chunk's place in the box, then its action.
class plan_runner {
public:
    plan_runner(const dataset_state& s, const chunk_plan& p, const output_ops& t, unsigned char* out);

    void run();

private:
    void next_chunk();

    // Chunk k (at c_): where it lies in the box, then what its action does.
    void step(std::size_t k);

    [[nodiscard]] std::string where() const { return box_text(off_.data(), n_); }
    [[nodiscard]] auto what() const {
        return [this] { return "chunk at " + where(); };
    }

    // The chunk's rows the box needs, as a chunk of their own (placed from row 0).
    void rows_as_chunk(std::size_t rows);

    // The chunk rows the box needs, of each of p_.ways chunks side by side, woven into the output.
    void weave(std::size_t k);

    // An unfiltered chunk, stored at its size or larger (HDF5 then reads the first chunk_bytes
    // too): only the chunk rows the box needs, contiguous in the chunk.
    void copy(std::size_t k);

    // Filtered chunks after chunk k in the grid that follow it in the file too (written in order;
    // gaps up to coalesce_gap_bytes read and skipped): one pread for the run, at most
    // coalesce_most_bytes, into buf_.run. A run the file cannot give whole is left to each chunk's
    // own read, which names the one failing.
    void stage_run(std::size_t k);

    // A filtered chunk: its bytes (from a staged run, or read alone) decoded, straight into the
    // output where it lands whole as it is, or in the other byte order with a shuffle last
    // (swapped as unshuffled); else placed from the decode buffer.
    void decode(std::size_t k);

    const dataset_state& s_;
    const chunk_plan& p_;
    const output_ops& t_;
    unsigned char* out_;
    std::size_t n_, esize_;
    std::vector<std::size_t> c_, off_, blo_, bhi_, dst_lo_, rel_lo_, rel_hi_, sub_shape_;
    scratch& buf_;
    std::size_t merged_until_ = 0;   // chunks before this one were read with an earlier one
    std::size_t staged_until_ = 0;   // chunks before this one (from a run's first) lie in buf_.run
    std::uint64_t staged_from_ = 0;  // the file address of buf_.run's first byte
};

/// Runs a plan: every chunk's bytes read (pread or mapped copy) and decoded outside the lock,
/// into out (values of `t`, extent p.out_shape).
inline void run_plan(const dataset_state& s, const chunk_plan& p, const output_ops& t, unsigned char* out) {
    if (p.empty()) return;
    plan_runner(s, p, t, out).run();
}

/// The box [lo, hi) of a chunked dataset into out (extent hi - lo). Only where every filter is
/// decodable and the chunks can be located (the file's index, the probe driver or a listing).
template <class T>
void read_chunked(const dataset_state& s, const std::size_t* lo, const std::size_t* hi, T* out) {
    const chunk_plan p = plan_chunks(s, lo, hi, output_ops_of<T>);
    if (!p.through_hdf5) {
        run_plan(s, p, output_ops_of<T>, reinterpret_cast<unsigned char*>(out));
        return;
    }
    const std::size_t n = s.dims.size();
    std::vector<std::size_t> zero(n, 0);
    hdf5_read_box<T>(s, lo, hi, out, p.out_shape.data(), zero.data());
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/run_plan.ipp>
#endif
