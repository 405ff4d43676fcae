#pragma once
// Catch2 v2 (Debian 12) or v3 (Ubuntu 24.04), whichever is installed.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define CHUNKWISE_CATCH3 1
#else
#include <catch2/catch.hpp>
#endif
