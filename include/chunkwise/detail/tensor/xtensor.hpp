#pragma once
// Internal: xtensor's containers and adaptors, wherever this xtensor version keeps them (0.26
// moved every header, xtensor-stack/xtensor#2844).
#if __has_include(<xtensor/containers/xtensor.hpp>)
#include <xtensor/containers/xadapt.hpp>
#include <xtensor/containers/xarray.hpp>
#include <xtensor/containers/xtensor.hpp>
#else
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xtensor.hpp>
#endif
