#pragma once

#include "core/common/input_role.h"
#include "core/common/result.h"
#include "core/compare/metric_catalog.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gapscope {

// A saved session's JSON document (docs/gui.md, "Saved sessions"), without Qt:
//   {"gapscope_session": 1, "files": [...], "run": N|null, "method": "...",
//    "capture": "...", "debug_buffer": "...",
//    "threshold": {"metric": "snr", "value": 20}, "filter": "...",
//    "selected_op": {"row": N, "name": "..."}, "compare_with": [...]}
// Every key but "gapscope_session" and "files" is optional. Paths are as
// written: the app resolves relative ones against the session file's folder.
// Kept in core so that the reader is fuzzed (fuzz/fuzz_session_file.cpp) by a
// build without Qt.
struct SessionDocument {
    std::vector<std::string> files;
    std::optional<int> run;
    std::string method; // empty: the capture's
    std::string capture;
    std::string debug_buffer;
    std::optional<MetricThreshold> threshold;
    std::string filter;
    std::optional<int> selected_row;
    std::string selected_op; // the row's op name: a row index alone may name another op if the files changed
    // B of an A/B comparison (docs/compare-runs.md): its files; empty when none.
    std::vector<std::string> compare_with;

    bool operator==(const SessionDocument& other) const;
};

// A session file is at most this long: it lists a few paths and choices.
constexpr std::size_t kMaxSessionDocument = 1 << 20;
// The key that makes a JSON document a saved session (FileKind::SavedSession).
constexpr const char* kSessionDocumentKey = "gapscope_session";

// The document, or why not (the key and its value, or the byte where the text
// breaks; the caller names the file). Refused before the document is built: a
// key given twice in one object (JSON libraries keep one silently) and nesting
// past 32 levels; then anything not of the format, such as a run of 0.5 or
// 1e10, which are not run 0.
Result<SessionDocument> parseSessionDocument(std::string_view text);

// The text parseSessionDocument reads back as `document`.
std::string sessionDocumentText(const SessionDocument& document);

} // namespace gapscope
