#pragma once

#include "core/compare/events_built.h"
#include "core/report/report_context.h"
#include "core/report/report_reader.h"
#include "core/session/session.h"

#include <optional>
#include <string>
#include <vector>

namespace gapscope::cli {

// What `gapscope-cli compare` was asked (compare_command.cpp parses it).
struct CompareOptions {
    std::vector<std::string> paths; // session folders or files, sorted by content
    std::string etdump, debugBuffer, etrecord, capture;
    int run = -1;
    std::string method;    // empty: the capture's method
    std::string threshold; // empty: the one --fail-above gate, else snr=20
    std::vector<std::string> failAbove;
    bool failOnInvalid = false;
    std::string csv, json, markdown;
    std::string modelExplorer; // a folder for Model Explorer's node-data overlays
    bool allRuns = false;
    std::string baseline; // a saved report to compare with (diff_command.h)
    std::vector<std::string> failIfWorse;
    std::string production;   // the production build beside a tapped session (production_build.h)
    std::string outputs;      // the method's outputs as the user saved them (saved_outputs.h)
    bool ladder = false;      // the stage ladder over every reference (session_ladder.h)
    bool makeCapture = false; // no capture: the exporter makes it first (make_capture.h)
};

// "gapscope-cli compare: MESSAGE" on stderr; returns 1, the exit status of an
// input that could not be read or an output not written.
int compareFailed(const std::string& message);

// Why a loaded session cannot be reported, as the exit status's message: a file
// that could not be read, nothing to compare, an input rewritten while it was read
// (its numbers are not the file's). Nothing: it can.
std::optional<std::string> unusableSession(const Session& session, const SessionFiles& files);

// --all-runs (compare_all_runs.cpp).
int compareAllRuns(const CompareOptions& o, const SessionFiles& files, SessionOptions options,
                   ReportContext ctx, std::vector<InputProvenance> inputs, const SavedReport* baseline,
                   std::optional<EventsBuilt> events);

} // namespace gapscope::cli
