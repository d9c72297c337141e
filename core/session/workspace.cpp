#include "core/session/workspace.h"

#include "core/common/sha256.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"

#include <algorithm>

namespace gapscope {

// Looked up under the lock, read outside it (a read can take seconds and
// another thread may want a different file meanwhile), kept under it unless
// `keep` says the result is not final (cancelled). Two threads asking for the
// same file at once may both read it; the first kept wins, and both are equal.
template <typename V, typename Key, typename Read, typename Keep>
V Workspace::cached(std::map<Key, V>& cache, const Key& key, Read read, Keep keep) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (const auto it = cache.find(key); it != cache.end())
            return it->second;
    }
    V fresh = read();
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_reads;
    if (!keep(fresh))
        return fresh;
    return cache.emplace(key, std::move(fresh)).first->second;
}

namespace {

template <typename T> struct Always {
    bool operator()(const T&) const { return true; }
};

// The reader's value shared, or its error.
template <typename T> Result<std::shared_ptr<const T>> shared(Result<T> r) {
    if (!r)
        return r.error();
    return std::make_shared<const T>(std::move(r).value());
}

} // namespace

Workspace::Workspace(SessionInputs inputs, std::vector<Error> unreadable) {
    add(std::move(inputs), std::move(unreadable));
}

FileSetId Workspace::add(SessionInputs inputs, std::vector<Error> unreadable) {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& file : inputs.files)
        for (const auto& set : m_sets) {
            const auto& earlier = set->inputs.files;
            const auto same = std::find_if(earlier.begin(), earlier.end(), [&](const auto& e) {
                // The same path too: named files and messages use paths as given.
                return e->path() == file->path() && e->sameFileAs(*file);
            });
            if (same != earlier.end()) {
                file = *same;
                break;
            }
        }
    m_sets.push_back(std::make_shared<const FileSet>(FileSet{std::move(inputs), std::move(unreadable)}));
    return m_sets.size() - 1;
}

std::shared_ptr<const FileSet> Workspace::fileSet(FileSetId id) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return id < m_sets.size() ? m_sets[id] : nullptr;
}

std::size_t Workspace::fileSetCount() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_sets.size();
}

Workspace::DumpResult Workspace::etdump(const std::shared_ptr<const MappedFile>& file,
                                        const std::shared_ptr<const MappedFile>& debugBuffer,
                                        const ProgressFn& progress) {
    return cached(
        m_dumps, std::make_pair(file.get(), debugBuffer.get()),
        [&] {
            EtdumpReadOptions o;
            o.name = file->path();
            o.debug_buffer = debugBuffer;
            o.progress = progress;
            return shared(parseEtdump(file->bytes(), o));
        },
        [](const DumpResult& r) { return r || r.error().code != ErrorCode::Cancelled; });
}

Workspace::EtRecordResult Workspace::etrecord(const std::shared_ptr<const MappedFile>& file) {
    return cached(
        m_etrecords, file.get(), [&] { return shared(readEtRecord(file)); }, Always<EtRecordResult>{});
}

Workspace::CaptureResult Workspace::capture(const std::shared_ptr<const MappedFile>& file) {
    return cached(
        m_captures, file.get(), [&] { return shared(readAotCapture(file)); }, Always<CaptureResult>{});
}

Workspace::SavedOutputsResult Workspace::savedOutputs(const std::shared_ptr<const MappedFile>& file) {
    return cached(
        m_savedOutputs, file.get(), [&] { return shared(SavedOutputs::read(file)); },
        Always<SavedOutputsResult>{});
}

std::string Workspace::sha256(const std::shared_ptr<const MappedFile>& file,
                              const std::atomic<bool>* cancelled) {
    return cached(
        m_digests, file.get(), [&] { return sha256Hex(*file, cancelled); },
        [](const std::string& digest) { return !digest.empty(); }); // empty: cancelled
}

std::shared_ptr<const ProfileTable> Workspace::profileTable(const std::shared_ptr<const EtDump>& dump,
                                                            const std::shared_ptr<const EtRecord>& etrecord) {
    const auto key = std::make_pair(dump.get(), etrecord.get());
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (const auto it = m_tables.find(key); it != m_tables.end())
            return it->second;
    }
    // Built outside the lock, as a read is; the first kept wins.
    ProfileOptions options;
    options.etrecord = etrecord.get();
    auto table = std::make_shared<const ProfileTable>(gapscope::profileTable(*dump, options));
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_tables.emplace(key, std::move(table)).first->second;
}

std::size_t Workspace::reads() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_reads;
}

} // namespace gapscope
