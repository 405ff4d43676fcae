#pragma once
/// \file
/// The scaling report's files (scaling.json, scaling.csv, scaling_ranks.csv) are members of
/// chunkwise::bench::scaling_report; this header, kept for programs that include it, brings it.

#include <chunkwise/bench/report.hpp>
