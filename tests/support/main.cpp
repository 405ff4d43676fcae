// The test runner's main (tests/support/catch_session.hpp: Catch2 v2 or v3; a run that executes no test fails).
#include "catch_session.hpp"

int main(int argc, char* argv[]) {
    Catch::Session session;
    if (const int rc = test::configure(session, argc, argv); rc != 0) return rc;
    return session.run();
}
