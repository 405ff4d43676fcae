#pragma once
// Internal: the executor contract lives in <chunkwise/executor.hpp>; its names stay here as
// aliases for one release (chunkwise 0.2 asked policy authors to name them in detail::), and
// call_start, what a distributed policy's map_blocks call learns when it begins.
#include <chunkwise/executor.hpp>

#include <cstdint>

namespace chunkwise::detail {

using chunkwise::add_worker_time;     // deprecated: <chunkwise/executor.hpp>
using chunkwise::describe_exception;  // deprecated: <chunkwise/executor.hpp>
using chunkwise::exec_result;         // deprecated: <chunkwise/executor.hpp>
using chunkwise::failure_record;      // deprecated: <chunkwise/executor.hpp>
using chunkwise::finish_stats;        // deprecated: <chunkwise/executor.hpp>
using chunkwise::run_one_block;       // deprecated: <chunkwise/executor.hpp>
using chunkwise::sort_failures;       // deprecated: <chunkwise/executor.hpp>
using chunkwise::start_exec;          // deprecated: <chunkwise/executor.hpp>
using chunkwise::worker_clock;        // deprecated: <chunkwise/executor.hpp>

/// What every rank learnt when a map_blocks call began on a distributed policy.
struct call_start {
    std::uint64_t call = 0;  // the number of this map_blocks call
    bool progress = false;   // some rank asked for progress: the root draws it for the whole run
};

}  // namespace chunkwise::detail
