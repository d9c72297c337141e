#pragma once

#include "core/capture/aot_capture.h"
#include "core/common/mapped_file.h"
#include "core/common/progress.h"
#include "core/common/result.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"
#include "core/session/session_inputs.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// The inputs of one set of files, mapped once and parsed at most once each: every
// comparison made over them (another run, method, capture or debug buffer) takes
// what it needs from here and reads no file again. What it hands out is
// immutable and shared; the cache itself is guarded, so comparisons on several
// threads (a superseded job still finishing beside the new one) may use it at
// once. A fresh look at the files (File → Reload) is a new Workspace.
class Workspace {
public:
    Workspace() = default; // for files already sorted (SessionFiles)
    // `unreadable`: the paths given that could not be mapped, said on every comparison.
    explicit Workspace(SessionInputs inputs, std::vector<Error> unreadable = {})
        : m_inputs(std::move(inputs)), m_unreadable(std::move(unreadable)) {}

    // The files as given, mapped once: each comparison sorts them by content again
    // (the run or method asked for may pick another capture).
    const SessionInputs& inputs() const { return m_inputs; }
    const std::vector<Error>& unreadable() const { return m_unreadable; }

    using DumpResult = Result<std::shared_ptr<const EtDump>>;
    using EtRecordResult = Result<std::shared_ptr<const EtRecord>>;
    using CaptureResult = Result<std::shared_ptr<const AotCapture>>;

    // The ETDump read with this debug buffer (may be null). A cancelled read is
    // not kept: the next request reads again.
    DumpResult etdump(const std::shared_ptr<const MappedFile>& file,
                      const std::shared_ptr<const MappedFile>& debugBuffer, const ProgressFn& progress);
    EtRecordResult etrecord(const std::shared_ptr<const MappedFile>& file);
    // The capture's document and tensor header (the tensors stay in the mapping).
    CaptureResult capture(const std::shared_ptr<const MappedFile>& file);
    // The file's SHA-256 (the provenance check's); empty when cancelled.
    std::string sha256(const std::shared_ptr<const MappedFile>& file, const std::atomic<bool>* cancelled);

    // How many times a file was parsed or hashed here: a switch that reads
    // nothing again leaves it unchanged (tests, benchmarks).
    std::size_t reads() const;

private:
    template <typename V, typename Key, typename Read, typename Keep>
    V cached(std::map<Key, V>& cache, const Key& key, Read read, Keep keep);

    SessionInputs m_inputs;
    std::vector<Error> m_unreadable;
    mutable std::mutex m_mutex;
    std::map<std::pair<const MappedFile*, const MappedFile*>, DumpResult> m_dumps;
    std::map<const MappedFile*, EtRecordResult> m_etrecords;
    std::map<const MappedFile*, CaptureResult> m_captures;
    std::map<const MappedFile*, std::string> m_digests;
    std::size_t m_reads = 0;
};

} // namespace gapscope
