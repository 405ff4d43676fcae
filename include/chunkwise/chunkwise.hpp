#pragma once
/// \file
/// Everything of chunkwise that needs no optional library: partition (with halos),
/// serial_policy, thread_policy, map_blocks, gather, reduce, concatenate, mergeable statistics
/// (accumulate.hpp), run statistics, errors, and production runs
/// (run_options: failures, checkpoints, logs, progress; these use POSIX besides the standard
/// library). MPI comes from <chunkwise/mpi.hpp>, HDF5 from <chunkwise/hdf5.hpp>, the scaling
/// harness from <chunkwise/bench/scaling.hpp>.

#include <chunkwise/accumulate.hpp>
#include <chunkwise/block_error.hpp>
#include <chunkwise/checkpoint.hpp>
#include <chunkwise/concatenate.hpp>
#include <chunkwise/error.hpp>
#include <chunkwise/failure.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/manifest.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/run_options.hpp>
#include <chunkwise/serial.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/threads.hpp>
#include <chunkwise/version.hpp>
