#include "core/align/runtime_entries.h"

#include "core/common/flat_index.h"
#include "core/common/hash_mix.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string_view>

namespace gapscope {

// Event names are compared as views: by size first, where std::string against
// a C string compares the characters of every one (two per event).
using namespace std::string_view_literals;

namespace {

// Lookups only: the order of keys lives in the vectors beside the index.
struct TupleHash {
    std::size_t operator()(const HandleTuple& t) const {
        std::size_t h = t.size();
        for (auto x : t)
            hashMix(h, std::hash<std::int64_t>()(x));
        return h;
    }
};

} // namespace

std::vector<RuntimeEntry> runtimeEntries(const std::vector<InspectorEvent>& events,
                                         std::vector<RuntimeOpName>& opNames) {
    // Handles covered by fine-grained delegated events, per backend: sorted
    // lists, not sets (a node per handle was a tenth of aligning 50,000
    // delegated ops), and backends are few, found by a scan.
    std::vector<std::pair<std::string_view, std::vector<std::int64_t>>> inner;
    const auto innerOf = [&](std::string_view backend) -> std::vector<std::int64_t>* {
        for (auto& [name, handles] : inner)
            if (name == backend)
                return &handles;
        return nullptr;
    };
    for (const auto& e : events)
        if (e.delegated && e.has_op_types && !e.debug_data.empty() && !e.resolved.handles.empty()) {
            auto* handles = innerOf(e.resolved.backend);
            if (!handles) {
                inner.emplace_back(e.resolved.backend, std::vector<std::int64_t>());
                handles = &inner.back().second;
            }
            handles->insert(handles->end(), e.resolved.handles.begin(), e.resolved.handles.end());
        }
    for (auto& [name, handles] : inner) {
        std::sort(handles.begin(), handles.end());
        handles.erase(std::unique(handles.begin(), handles.end()), handles.end());
    }

    std::vector<RuntimeEntry> byKey; // insertion-ordered "dict"
    // Key (the events' own tuples, which outlive the index: no copy) → its
    // place in byKey and opNames.
    FlatIndex<const HandleTuple*> keyIndex(events.size());
    byKey.reserve(events.size());
    opNames.reserve(events.size());
    for (const auto& e : events) {
        if (e.name == "OPERATOR_CALL"sv || !e.has_op_types)
            continue;
        const HandleTuple& key = e.resolved.handles;
        if (e.name == "DELEGATE_CALL"sv) {
            const auto* covered = innerOf(e.resolved.backend);
            if (covered && !covered->empty()) {
                bool disjoint = true;
                for (auto h : key)
                    disjoint = disjoint && !std::binary_search(covered->begin(), covered->end(), h);
                if (!disjoint)
                    continue;
            }
        }
        std::size_t& at =
            keyIndex.at(&key, TupleHash()(key), [&](const auto& slot) { return *slot.key == key; });
        if (at == keyIndex.kNone) {
            at = byKey.size();
            byKey.push_back(RuntimeEntry{key, e.instruction_id, &e, e.num_outputs});
            opNames.push_back(RuntimeOpName{&key, &e.name});
        } else if (e.instruction_id > byKey[at].instruction_id) {
            RuntimeEntry& existing = byKey[at];
            existing.instruction_id = e.instruction_id;
            existing.event = &e;
            existing.num_outputs = e.num_outputs;
            opNames[at].name = &e.name;
        }
    }

    // Merged entries are pairwise disjoint, so the ones an entry overlaps are
    // the owners of its handles; they fold in list order (their sequence
    // numbers), as ExecuTorch's scan over the list does. O(handles · log n)
    // instead of a scan of the list per entry.
    std::vector<RuntimeEntry> slots; // by sequence number; dead once absorbed
    std::vector<bool> alive;
    slots.reserve(byKey.size());
    alive.reserve(byKey.size());
    std::size_t handles = 0;
    for (const auto& entry : byKey)
        handles += entry.handles.size();
    // Handle → sequence number of its merged entry.
    FlatIndex<std::int64_t> owner(handles);
    const auto ownerOf = [&owner](std::int64_t h) -> std::size_t& {
        return owner.at(h, static_cast<std::size_t>(h), [h](const auto& slot) { return slot.key == h; });
    };
    std::vector<std::size_t> overlapping;
    for (auto& entry : byKey) {
        overlapping.clear();
        for (auto h : entry.handles)
            if (const std::size_t seq = ownerOf(h); seq != owner.kNone)
                overlapping.push_back(seq);
        if (overlapping.empty()) { // most entries: the entry is its own merged entry
            for (auto h : entry.handles)
                ownerOf(h) = slots.size();
            slots.push_back(std::move(entry));
            alive.push_back(true);
            continue;
        }
        std::sort(overlapping.begin(), overlapping.end());
        overlapping.erase(std::unique(overlapping.begin(), overlapping.end()), overlapping.end());
        HandleTuple current = entry.handles;
        RuntimeEntry value = entry;
        for (auto seq : overlapping) {
            const RuntimeEntry& m = slots[seq];
            if (m.instruction_id < entry.instruction_id) {
                current = mergeHandleTuples(m.handles, current);
            } else {
                current = mergeHandleTuples(current, m.handles);
                value = m;
            }
            alive[seq] = false;
        }
        value.handles = current;
        for (auto h : current)
            ownerOf(h) = slots.size();
        slots.push_back(std::move(value));
        alive.push_back(true);
    }
    std::vector<RuntimeEntry> merged;
    merged.reserve(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i)
        if (alive[i])
            merged.push_back(std::move(slots[i]));
    return merged;
}

HandleTuple mergeHandleTuples(const HandleTuple& first, const HandleTuple& second) {
    HandleTuple out;
    const std::set<std::int64_t> inSecond(second.begin(), second.end());
    for (auto h : first)
        if (!inSecond.count(h))
            out.push_back(h);
    std::set<std::int64_t> seen(out.begin(), out.end());
    for (auto h : second)
        if (seen.insert(h).second)
            out.push_back(h);
    return out;
}

} // namespace gapscope
