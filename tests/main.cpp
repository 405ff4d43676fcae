// The test runner's main: Catch2 v2 or v3, and a run that executes no test fails.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
#include <catch2/catch_all.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char* argv[]) {
    Catch::Session session;
    if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
    // Without this a filter that matches nothing (or a file without tests) passes silently.
    session.configData().warnings =
        static_cast<Catch::WarnAbout::What>(session.configData().warnings | Catch::WarnAbout::NoTests);
    return session.run();
}
