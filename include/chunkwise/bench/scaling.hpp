#pragma once
/// \file
/// The strong-scaling harness, one include (standard library only): the fits (Karp-Flatt,
/// Amdahl, USL: fits.hpp), where it ran (machine.hpp), the report with its critical path, per-rank
/// breakdown and straggler (report.hpp) and its files (report_io.hpp), the per-phase model that
/// predicts how many workers to ask for (model.hpp), and strong_scaling over thread counts
/// (driver.hpp). Plots: <chunkwise/bench/plot.hpp>. Schema and how to read the figures:
/// docs/scaling.md.

#include <chunkwise/bench/driver.hpp>
#include <chunkwise/bench/fits.hpp>
#include <chunkwise/bench/machine.hpp>
#include <chunkwise/bench/model.hpp>
#include <chunkwise/bench/report.hpp>
#include <chunkwise/bench/report_io.hpp>
