#pragma once
/// \file
/// Everything of chunkwise that needs only the C++ standard library: partition, serial_policy,
/// thread_policy, map_blocks, gather, reduce, run_options (failures, checkpoints, logs, progress). MPI and HDF5 come from <chunkwise/mpi.hpp> and
/// <chunkwise/hdf5.hpp>.

#include <chunkwise/block_error.hpp>
#include <chunkwise/checkpoint.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/run_options.hpp>
#include <chunkwise/serial.hpp>
#include <chunkwise/stats.hpp>
#include <chunkwise/threads.hpp>
#include <chunkwise/version.hpp>
