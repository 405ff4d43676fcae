#pragma once
/// \file
/// `chunkwise::zarr::write_blocks`: every worker's block results into one new Zarr array, written
/// where they were computed: threads write their chunk files at once; under MPI rank 0 writes the
/// metadata, then every rank writes the chunks it owns. No lock, no MPI-IO.

#include <chunkwise/zarr/write.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr {

namespace detail {

/// Where each block's rows go: block index, rank, first row, rows (in block order).
struct block_place {
    std::size_t index, rank, row0, rows;
};

/// The slabs `mine` (this process's results) and `pieces` (rows of other processes' blocks in
/// grid rows this process owns) give for the grid rows this process owns.
template <class T>
std::vector<slab<T>> owned_slabs(const std::vector<block_place>& places, const std::vector<const T*>& data,
                                 const std::vector<bool>& local) {
    std::vector<slab<T>> out;
    for (std::size_t k = 0; k < places.size(); ++k)
        if (local[k] && places[k].rows > 0) out.push_back({places[k].row0, places[k].rows, data[k]});
    return out;
}

/// Runs `step` on the root; every process returns once it is done, or throws: the root its own
/// error, the others a zarr::error saying what the root could not do (under MPI an agreement).
template <class Policy, class Step>
void root_step(Policy& policy, const std::string& store, const std::string& what, Step&& step) {
    std::exception_ptr failed;
    std::string problem;
    if (policy.is_root()) {
        try {
            step();
        } catch (const std::exception& e) {
            failed = std::current_exception();
            problem = e.what();
        }
    }
    if constexpr (distributed_policy<Policy>)
        problem = chunkwise::detail::policy_access::agree_on_problem(policy, problem);
    if (failed) std::rethrow_exception(failed);
    if (!problem.empty()) throw error(store, "", "write_blocks: the root " + what + ": " + problem);
}

}  // namespace detail

/// Writes every block's result into one new Zarr array at `path`, concatenated along axis 0 in
/// block order (results are arrays of rank N or std::vectors, agreeing beyond axis 0; blocks that
/// failed under on_error::collect are left out). The root prepares the store as `write` does
/// (the mode decides what happens to an array there; the store is marked unfinished), all wait for
/// it; each chunk (each shard, where sharded) is then written by exactly one process: the one whose
/// block holds the chunk's first row; rows of other processes' blocks that fall in it are sent to
/// it first, so a chunk shared by blocks is never torn. Under a thread policy the chunks are
/// written by the policy's workers at once; under MPI (collective: every rank passes the same path
/// and options) each rank writes its own. Once every chunk is written the root writes the
/// metadata, which ends the write; a failure anywhere instead removes what was written. Every
/// process returns once the metadata is written, or throws. Blocks aligned to the chunk rows
/// (zarr::partition(rows, options, parts)) send nothing.
/// \throws zarr::error naming the store and the chunk that failed (on every rank under MPI)
template <class Policy, class R>
void write_blocks(Policy& policy, const std::filesystem::path& path, partial_results<R>&& results,
                  const write_options& opt = {}) {
    using T = std::remove_cv_t<typename R::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::zarr::write_blocks: block results must be arrays or vectors of an arithmetic type");
    const std::string store = path.string();
    constexpr bool distributed = distributed_policy<Policy>;
    const std::size_t me = distributed ? static_cast<std::size_t>(policy.rank()) : 0;
    if constexpr (distributed) {
        // The same call, store and options on every rank, or every rank throws naming each value.
        using access = chunkwise::detail::policy_access;
        access::agree_on_call(policy, "zarr::write_blocks", results.call_id(), results.total_blocks());
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(path, ec).lexically_normal();
        access::check_same(policy, "stores", ec ? store : absolute.string());
        std::string text = std::to_string(opt.format) + " " + std::to_string(opt.deflate) + " " + opt.codec + " " +
                           std::to_string(opt.level) + (opt.shuffle ? " shuffle" : "") +
                           (opt.mode == write_mode::replace ? " replace" : " create");
        for (std::size_t c : opt.chunk) text += " c" + std::to_string(c);
        for (std::size_t c : opt.shard) text += " s" + std::to_string(c);
        access::check_same(policy, "write_options", text);
    }
    // 1. Every process learns every block's rank and rows (all_gather of a few numbers).
    std::vector<std::size_t> inner;
    std::vector<std::vector<std::size_t>> mine;
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto s = chunkwise::detail::result_shape(results.values()[k]);
        std::vector<std::size_t> v{results.indices()[k], me};
        v.insert(v.end(), s.begin(), s.end());
        mine.push_back(std::move(v));
    }
    std::vector<std::vector<std::size_t>> all;
    if constexpr (distributed) {
        partial_results<std::vector<std::size_t>> shapes(results.total_blocks(), results.indices(), mine, {});
        all = chunkwise::all_gather(policy, std::move(shapes));
    } else {
        all = mine;
    }
    std::vector<detail::block_place> places;
    std::vector<const T*> data;
    std::vector<bool> local;
    std::size_t rows = 0, at_local = 0;
    for (const auto& v : all) {
        const std::vector<std::size_t> s(v.begin() + 2, v.end());
        if (places.empty()) inner.assign(s.begin() + 1, s.end());
        if (s.size() != inner.size() + 1 || !std::equal(s.begin() + 1, s.end(), inner.begin()))
            throw error(store, "", "write_blocks: block results disagree in shape beyond axis 0");
        places.push_back({v[0], v[1], rows, s[0]});
        const bool here = v[1] == me;
        local.push_back(here);
        data.push_back(here ? results.values()[at_local++].data() : nullptr);
        rows += s[0];
    }
    std::vector<std::size_t> shape{rows};
    if (all.empty()) shape = {0};
    shape.insert(shape.end(), inner.begin(), inner.end());
    const detail::plan p = detail::make_plan<T>(store, shape, opt);
    // 2. The root prepares the store (marked unfinished until its metadata is written, last);
    //    everyone waits for it.
    bool created = false;
    detail::root_step(policy, store, "could not prepare the store",
                      [&] { created = detail::prepare_store(store, p.mode); });
    // 3. Who owns each grid row: the process holding the block that holds its first row.
    const std::size_t u = p.grid[0];
    const std::size_t grid_rows = shape[0] == 0 ? 0 : (shape[0] + u - 1) / u;
    std::vector<std::size_t> owner(grid_rows, 0);
    for (std::size_t g = 0, k = 0; g < grid_rows; ++g) {
        while (places[k].row0 + places[k].rows <= g * u) ++k;
        owner[g] = places[k].rank;
    }
    std::vector<detail::slab<T>> slabs = detail::owned_slabs<T>(places, data, local);
    std::vector<std::vector<T>> pieces;
    if constexpr (distributed) {
        // Rows of this rank's blocks in grid rows another rank owns go to every rank (few: none
        // for blocks aligned to the grid rows); each owner takes those that fall in its rows.
        std::vector<std::vector<T>> sent;
        std::size_t row_values = 1;
        for (std::size_t e : inner) row_values *= e;
        for (std::size_t k = 0; k < places.size(); ++k) {
            if (!local[k]) continue;
            std::vector<T> piece;
            for (std::size_t r = places[k].row0; r < places[k].row0 + places[k].rows;) {
                const std::size_t g = r / u, end = std::min((g + 1) * u, places[k].row0 + places[k].rows);
                if (owner[g] != me) {
                    const T* from = data[k] + (r - places[k].row0) * row_values;
                    piece.insert(piece.end(), from, from + (end - r) * row_values);
                }
                r = end;
            }
            sent.push_back(std::move(piece));
        }
        partial_results<std::vector<T>> out(results.total_blocks(), results.indices(), std::move(sent), {});
        pieces = chunkwise::all_gather(policy, std::move(out));
        for (std::size_t k = 0; k < places.size(); ++k) {
            if (local[k]) continue;
            std::size_t used = 0;
            for (std::size_t r = places[k].row0; r < places[k].row0 + places[k].rows;) {
                const std::size_t g = r / u, end = std::min((g + 1) * u, places[k].row0 + places[k].rows);
                if (owner[g] != places[k].rank) {
                    if (owner[g] == me) slabs.push_back({r, end - r, pieces[k].data() + used * row_values});
                    used += end - r;
                }
                r = end;
            }
        }
    }
    // 4. Each process writes the grid rows it owns (under a thread policy, by its workers at once).
    std::vector<std::size_t> owned_rows;
    for (std::size_t g = 0; g < grid_rows; ++g)
        if (owner[g] == me) owned_rows.push_back(g);
    std::mutex guard;
    std::exception_ptr first;
    const auto write_rows = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) {
            try {
                detail::write_grid_row<T>(store, p, slabs, owned_rows[i]);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(guard);
                if (!first) first = std::current_exception();
                return;
            }
        }
    };
    std::string agreed;
    if constexpr (distributed) {
        write_rows(0, owned_rows.size());
        std::string mine_problem;
        if (first) {
            try {
                std::rethrow_exception(first);
            } catch (const std::exception& e) {
                mine_problem = e.what();
            }
        }
        agreed = chunkwise::detail::policy_access::agree_on_problem(policy, mine_problem);
    } else {
        if (!owned_rows.empty()) {
            const auto blocks =
                chunkwise::partition(owned_rows.size(), parts{std::max<std::size_t>(policy.workers(), 1) * 4});
            (void)map_blocks(policy, blocks, [&](const block& b) {
                write_rows(b.begin, b.end);
                return 0;
            });
        }
    }
    // 5. A failure anywhere: the root removes what was written, every process throws. Else the
    //    root writes the metadata, which ends the write.
    if (first || !agreed.empty()) {
        if (policy.is_root()) {
            try {
                detail::clear_store(store, created);
            } catch (const error&) {
                // the write's own error says more; the unfinished mark stays where clearing failed
            }
        }
        if (first) std::rethrow_exception(first);
        throw error(store, "", "write_blocks failed on another rank: " + agreed);
    }
    detail::root_step(policy, store, "could not write the metadata", [&] { detail::write_metadata<T>(store, p); });
}

}  // namespace chunkwise::zarr
