// Writes a large synthetic session for screenshots and load tests (see
// bench/synthetic_session.h).
// usage: gapscope_make_session OUTDIR [OPS=300] [ELEMENTS=4096] [--fast | --steps=N | --profiled=N]
// --steps=N: a decode loop of N executions with a capture per step (the steps view).
// --profiled=N: N runs that log QNN's per-op cycles (the latency benchmark's session).

#include "bench/synthetic_session.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUTDIR [OPS] [ELEMENTS] [--fast | --steps=N | --profiled=N]\n",
                     argv[0]);
        return 2;
    }
    const int ops = argc > 2 ? std::atoi(argv[2]) : 300;
    const int elements = argc > 3 ? std::atoi(argv[3]) : 4096;
    if (ops <= 0 || elements <= 0) {
        std::fprintf(stderr, "OPS and ELEMENTS must be positive\n");
        return 2;
    }
    const std::string option = argc > 4 ? argv[4] : "";
    const bool fast = option == "--fast"; // cheap values, for many-GiB sessions
    const bool profiled = option.rfind("--profiled=", 0) == 0;
    const int steps = option.rfind("--steps=", 0) == 0 ? std::atoi(option.c_str() + 8)
                      : profiled                       ? std::atoi(option.c_str() + 11)
                                                       : 1;
    if (steps <= 0) {
        std::fprintf(stderr, "--steps=N takes a positive N\n");
        return 2;
    }
    if (auto err = gapscope::bench::writeSyntheticSession(argv[1], ops, elements,
                                                          fast ? gapscope::bench::SyntheticValues::Fast
                                                               : gapscope::bench::SyntheticValues::Normal,
                                                          steps, steps > 1 && !profiled, profiled)) {
        std::fprintf(stderr, "%s\n", err->describe().c_str());
        return 1;
    }
    const int side = static_cast<int>(std::sqrt(static_cast<double>(elements)));
    std::printf("wrote %d ops of %dx%d float32 to %s\n", ops, side, side, argv[1]);
    return 0;
}
