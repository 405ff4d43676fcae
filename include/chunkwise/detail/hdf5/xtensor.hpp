#pragma once
// Kept for one release: xtensor's headers are found by <chunkwise/detail/tensor/xtensor.hpp>.
#include <chunkwise/detail/tensor/xtensor.hpp>
