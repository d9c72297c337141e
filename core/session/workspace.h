#pragma once

#include "core/align/saved_outputs.h"
#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/common/progress.h"
#include "core/common/result.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/profile/profile_table.h"
#include "core/session/session_inputs.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// One set of files opened together (one session's), as given: each comparison
// sorts them by content again (the run or method asked for may pick another
// capture). `unreadable`: the paths given that could not be mapped, said on
// every comparison of the set.
struct FileSet {
    SessionInputs inputs;
    std::vector<Error> unreadable;
};
using FileSetId = std::size_t;

// Sets of files open side by side (a session, and others beside it to compare
// with: another backend, recipe or build), mapped once and parsed at most once
// each: every comparison made over them (another run, method, capture or debug
// buffer, or another set) takes what it needs from here and reads no file
// again. A file that two sets share (one ETRecord for two runs of a model) is
// mapped and parsed once. What it hands out is immutable and shared; the
// workspace itself is guarded, so comparisons on several threads (two sessions
// loading at once, a superseded job still finishing beside the new one) may
// use it together. A fresh look at the files (File → Reload) is a new Workspace.
class Workspace {
public:
    Workspace() = default; // for files already sorted (SessionFiles)
    // A workspace holding this one set (id 0).
    explicit Workspace(SessionInputs inputs, std::vector<Error> unreadable = {});

    // Opens another set beside the others and returns its id. Its files that
    // are the same file at the same path as one of an earlier set
    // (MappedFile::sameFileAs) are replaced by that one, so what was parsed of
    // it is shared.
    FileSetId add(SessionInputs inputs, std::vector<Error> unreadable = {});
    // Null for an id never handed out.
    std::shared_ptr<const FileSet> fileSet(FileSetId id) const;
    std::size_t fileSetCount() const;

    using DumpResult = Result<std::shared_ptr<const EtDump>>;
    using EtRecordResult = Result<std::shared_ptr<const EtRecord>>;
    using CaptureResult = Result<std::shared_ptr<const AotCapture>>;
    using SavedOutputsResult = Result<std::shared_ptr<const SavedOutputs>>;

    // The ETDump read with this debug buffer (may be null). A cancelled read is
    // not kept: the next request reads again.
    DumpResult etdump(const std::shared_ptr<const MappedFile>& file,
                      const std::shared_ptr<const MappedFile>& debugBuffer, const ProgressFn& progress);
    EtRecordResult etrecord(const std::shared_ptr<const MappedFile>& file);
    // The capture's document and tensor header (the tensors stay in the mapping).
    CaptureResult capture(const std::shared_ptr<const MappedFile>& file);
    // The outputs the user saved (saved_outputs.h): read once for every step.
    SavedOutputsResult savedOutputs(const std::shared_ptr<const MappedFile>& file);
    // The timing table of a dump this workspace read (profileTable, the delegates
    // named by `etrecord`, may be null): built once, shared by every comparison
    // of its runs (the steps of a loop, --all-runs, a run switch). Not a read.
    std::shared_ptr<const ProfileTable> profileTable(const std::shared_ptr<const EtDump>& dump,
                                                     const std::shared_ptr<const EtRecord>& etrecord);
    // The file's SHA-256 (the provenance check's); empty when cancelled.
    std::string sha256(const std::shared_ptr<const MappedFile>& file, const std::atomic<bool>* cancelled);

    // How many times a file was parsed or hashed here: a switch that reads
    // nothing again leaves it unchanged (tests, benchmarks).
    std::size_t reads() const;

private:
    template <typename V, typename Key, typename Read, typename Keep>
    V cached(std::map<Key, V>& cache, const Key& key, Read read, Keep keep);

    mutable std::mutex m_mutex;
    std::vector<std::shared_ptr<const FileSet>> m_sets;
    std::map<std::pair<const MappedFile*, const MappedFile*>, DumpResult> m_dumps;
    std::map<const MappedFile*, EtRecordResult> m_etrecords;
    std::map<const MappedFile*, CaptureResult> m_captures;
    std::map<const MappedFile*, SavedOutputsResult> m_savedOutputs;
    std::map<const MappedFile*, std::string> m_digests;
    // Keyed by what the workspace holds: the pointers stay valid as long as it does.
    std::map<std::pair<const EtDump*, const EtRecord*>, std::shared_ptr<const ProfileTable>> m_tables;
    std::size_t m_reads = 0;
};

} // namespace gapscope
