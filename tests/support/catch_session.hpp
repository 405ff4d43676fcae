#pragma once
// What both test runners (main.cpp, mpi_main.cpp) set up: Catch2 v2 or v3, the command line, and
// a run that executes no test fails (otherwise a filter that matches nothing, or a file without
// tests, passes silently).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

namespace test {

/// Applies the command line to `session`; returns Catch's non-zero status when it is invalid.
inline int configure(Catch::Session& session, int argc, char* argv[]) {
    if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
#if __has_include(<catch2/catch_all.hpp>)
    // Catch2 v3 fails a run of no test by itself; a filter that matches nothing is made an error.
    session.configData().warnings =
        static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::UnmatchedTestSpec);
#else
    session.configData().warnings =
        static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::NoTests);
#endif
    return 0;
}

}  // namespace test
