#include "core/profile/profile_table.h"

#include "core/common/hash_mix.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace gapscope {

namespace {

// Python's `x or None` and `-1 → None` of the Inspector's signatures.
std::optional<std::int64_t> idOrNone(std::int32_t id) {
    return id != -1 ? std::optional<std::int64_t>(id) : std::nullopt;
}
// A view of the event's own string: the ETDump outlives the table's construction.
std::optional<std::string_view> viewOrNone(const std::optional<std::string>& s) {
    return s && !s->empty() ? std::optional<std::string_view>(*s) : std::nullopt;
}
std::optional<std::string> strOrNone(const std::optional<std::string>& s) {
    return s && !s->empty() ? s : std::nullopt;
}

// InstructionEventSignature: the chain index compared as the Python int it is
// (a profile event's int32 −1 and a debug event's uint64 2⁶⁴ − 1 differ).
struct InstructionKey {
    std::int32_t instruction_id;
    bool chain_negative;
    std::uint64_t chain_magnitude;
    std::int32_t delegate_int;
    std::optional<std::string_view> delegate_str;
    bool operator==(const InstructionKey& o) const {
        return std::tie(instruction_id, chain_negative, chain_magnitude, delegate_int, delegate_str) ==
               std::tie(o.instruction_id, o.chain_negative, o.chain_magnitude, o.delegate_int,
                        o.delegate_str);
    }
};

// ProfileEventSignature and DebugEventSignature have the same fields.
struct EventSig {
    std::string_view name; // views into the ETDump's events
    std::optional<std::int64_t> instruction_id, delegate_int;
    std::optional<std::string_view> delegate_str;
    bool operator==(const EventSig& o) const {
        return std::tie(name, instruction_id, delegate_int, delegate_str) ==
               std::tie(o.name, o.instruction_id, o.delegate_int, o.delegate_str);
    }
};

struct EventSignature {
    std::int32_t instruction_id = 0;
    std::optional<EventSig> profile, debug;
    bool operator==(const EventSignature& o) const {
        return instruction_id == o.instruction_id && profile == o.profile && debug == o.debug;
    }
};

// Hashes, so that a run of 150,000 events is collated and grouped through hash
// tables rather than ordered maps of string keys.
std::size_t hashOf(const std::optional<EventSig>& s) {
    std::size_t h = s.has_value();
    if (s) {
        hashMix(h, std::hash<std::string_view>{}(s->name));
        hashMix(h, std::hash<std::int64_t>{}(s->instruction_id.value_or(-2)));
        hashMix(h, std::hash<std::int64_t>{}(s->delegate_int.value_or(-2)));
        hashMix(h, s->delegate_str ? std::hash<std::string_view>{}(*s->delegate_str) : 1);
    }
    return h;
}
struct SignatureHash {
    std::size_t operator()(const EventSignature& s) const {
        std::size_t h = std::hash<std::int32_t>{}(s.instruction_id);
        hashMix(h, hashOf(s.profile));
        hashMix(h, hashOf(s.debug));
        return h;
    }
};
struct InstructionKeyHash {
    std::size_t operator()(const InstructionKey& k) const {
        std::size_t h = std::hash<std::int32_t>{}(k.instruction_id);
        hashMix(h, k.chain_negative);
        hashMix(h, std::hash<std::uint64_t>{}(k.chain_magnitude));
        hashMix(h, std::hash<std::int32_t>{}(k.delegate_int));
        hashMix(h, k.delegate_str ? std::hash<std::string_view>{}(*k.delegate_str) : 1);
        return h;
    }
};

// One run's events by signature, in the order the Inspector's dict keeps them,
// and each one's profile event (null: none), position for position.
struct RunEvents {
    std::vector<EventSignature> order;
    std::vector<const ProfileEvent*> profile;
    std::size_t hash = 0; // of `order`: runs are grouped by it, then compared
};

RunEvents collate(const RunData& run, std::size_t runIndex, std::vector<std::string>& notes) {
    // The instructions in order of first appearance, and each event tagged with
    // its instruction's index, then gathered per instruction by a stable counting
    // sort: no container per instruction (a QNN call logs 100,000 of them).
    std::vector<InstructionKey> order;
    std::unordered_map<InstructionKey, std::uint32_t, InstructionKeyHash> indexOf;
    indexOf.reserve(run.events.size());
    struct Tagged {
        std::uint32_t key;
        const ProfileEvent* profile;
        const DebugEvent* debug;
    };
    std::vector<Tagged> tagged;
    tagged.reserve(run.events.size());
    std::size_t skipped = 0;
    const auto indexFor = [&](const InstructionKey& key) {
        const auto [it, added] = indexOf.try_emplace(key, static_cast<std::uint32_t>(order.size()));
        if (added)
            order.push_back(key);
        return it->second;
    };
    for (const auto& event : run.events) {
        if (const auto* p = std::get_if<ProfileEvent>(&event)) {
            const InstructionKey key{
                p->instruction_id, p->chain_index < 0,
                static_cast<std::uint64_t>(p->chain_index < 0 ? -static_cast<std::int64_t>(p->chain_index)
                                                              : p->chain_index),
                p->delegate_debug_id_int,
                p->delegate_debug_id_str ? std::optional<std::string_view>(*p->delegate_debug_id_str)
                                         : std::nullopt};
            tagged.push_back({indexFor(key), p, nullptr});
        } else if (const auto* d = std::get_if<DebugEvent>(&event)) {
            const InstructionKey key{d->instruction_id, false, d->chain_index, d->delegate_debug_id_int,
                                     d->delegate_debug_id_str
                                         ? std::optional<std::string_view>(*d->delegate_debug_id_str)
                                         : std::nullopt};
            const auto k = indexFor(key);
            if (!(d->debug_entry && d->debug_entry->output)) // run outputs are not events
                tagged.push_back({k, nullptr, d});
        } else {
            ++skipped;
        }
    }
    std::vector<std::uint32_t> start(order.size() + 1, 0);
    for (const auto& t : tagged)
        ++start[t.key + 1];
    for (std::size_t k = 0; k < order.size(); ++k)
        start[k + 1] += start[k];
    std::vector<Tagged> byKey(tagged.size());
    {
        std::vector<std::uint32_t> next(start.begin(), start.end() - 1);
        for (const auto& t : tagged)
            byKey[next[t.key]++] = t;
    }
    if (skipped)
        notes.push_back("run " + std::to_string(runIndex) + " logs " + std::to_string(skipped) +
                        " allocation or empty events: ExecuTorch's Inspector raises on them "
                        "(find_populated_event); Gapscope leaves them out of the timing table");
    RunEvents out;
    // Each signature's position in `order`, by its hash: no second copy of its strings.
    std::unordered_multimap<std::size_t, std::size_t> position;
    position.reserve(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
        const InstructionKey& key = order[k];
        const Tagged* first = byKey.data() + start[k];
        const Tagged* last = byKey.data() + start[k + 1];
        if (first == last)
            continue; // run outputs only
        const Tagged* firstDebug = std::find_if(first, last, [](const Tagged& t) { return t.debug; });
        const bool anyProfile = std::any_of(first, last, [](const Tagged& t) { return t.profile; });
        std::optional<EventSig> debugSig;
        if (firstDebug != last) {
            const DebugEvent* d = firstDebug->debug;
            debugSig = EventSig{d->name ? std::string_view(*d->name) : std::string_view(),
                                idOrNone(d->instruction_id), idOrNone(d->delegate_debug_id_int),
                                viewOrNone(d->delegate_debug_id_str)};
        }
        const auto add = [&](EventSignature sig, const ProfileEvent* p) {
            const std::size_t h = SignatureHash{}(sig);
            const auto [from, to] = position.equal_range(h);
            for (auto it = from; it != to; ++it)
                if (out.order[it->second] ==
                    sig) { // a later event of one signature replaces the earlier, in its place
                    out.profile[it->second] = p;
                    return;
                }
            position.emplace(h, out.order.size());
            hashMix(out.hash, h);
            out.order.push_back(std::move(sig));
            out.profile.push_back(p);
        };
        if (!anyProfile) {
            add({key.instruction_id, std::nullopt, debugSig}, nullptr);
            continue;
        }
        for (const Tagged* t = first; t != last; ++t) {
            const ProfileEvent* p = t->profile;
            if (!p)
                continue;
            add({key.instruction_id,
                 EventSig{p->name ? std::string_view(*p->name) : std::string_view(),
                          idOrNone(p->instruction_id), idOrNone(p->delegate_debug_id_int),
                          viewOrNone(p->delegate_debug_id_str)},
                 debugSig},
                p);
        }
    }
    return out;
}

// _populate_event_signature_fields: the name, the delegate id and whether delegated.
void applySignature(ProfiledEvent& e, const std::optional<EventSig>& sig) {
    if (!sig)
        return;
    e.delegate_id_int = sig->delegate_int;
    e.delegate_id_str = sig->delegate_int || !sig->delegate_str
                            ? std::nullopt
                            : std::optional<std::string>(*sig->delegate_str);
    e.is_delegated_op = e.delegate_id_int || e.delegate_id_str;
    const std::string name = !e.is_delegated_op  ? std::string(sig->name)
                             : e.delegate_id_int ? std::to_string(*e.delegate_id_int)
                                                 : *e.delegate_id_str;
    if (!name.empty())
        e.name = name;
}

} // namespace

std::optional<std::string> delegateIdentifier(const ProfileEvent& p) {
    if (const auto id = idOrNone(p.delegate_debug_id_int))
        return std::to_string(*id);
    return strOrNone(p.delegate_debug_id_str);
}

ProfileTable profileTable(const EtDump& dump, const ProfileOptions& options) {
    ProfileTable table;
    table.source = options.source;
    table.target = options.target;
    const double factor = timeScaleFactor(options.source, options.target);
    // Runs with one name, bundled input and event signatures form one block
    // (the first run's events stand for the block's signatures).
    struct Group {
        std::optional<std::string> name;
        std::int32_t bundled_input_index;
        std::vector<std::size_t> runs;
        std::vector<RunEvents> events;
    };
    std::vector<Group> groups;
    std::unordered_multimap<std::size_t, std::size_t> groupsOfHash;
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const RunData& run = dump.runs[r];
        if (run.events.empty())
            continue;
        RunEvents events = collate(run, r, table.notes);
        std::size_t h = events.hash;
        hashMix(h, run.name ? std::hash<std::string>{}(*run.name) : 1);
        hashMix(h, std::hash<std::int32_t>{}(run.bundled_input_index));
        std::optional<std::size_t> found;
        const auto [first, last] = groupsOfHash.equal_range(h);
        for (auto it = first; it != last && !found; ++it) {
            const Group& g = groups[it->second];
            if (g.name == run.name && g.bundled_input_index == run.bundled_input_index &&
                g.events.front().order == events.order)
                found = it->second;
        }
        if (!found) {
            found = groups.size();
            groupsOfHash.emplace(h, *found);
            groups.push_back({run.name, run.bundled_input_index, {}, {}});
        }
        groups[*found].runs.push_back(r);
        groups[*found].events.push_back(std::move(events));
    }
    const MethodMaps* maps = options.etrecord ? options.etrecord->maps("forward") : nullptr;
    bool wrappedBadly = false;
    for (const auto& g : groups) {
        ProfiledBlock block;
        block.name = g.name.value_or("");
        block.bundled_input_index = g.bundled_input_index;
        block.runs = g.runs;
        const auto& signatures = g.events.front().order;
        for (std::size_t k = 0; k < signatures.size(); ++k) {
            const EventSignature& sig = signatures[k];
            ProfiledEvent e;
            e.instruction_id = sig.instruction_id;
            applySignature(e, sig.profile);
            for (const auto& run : g.events) {
                const ProfileEvent* p = run.profile[k];
                if (!p)
                    continue;
                // The Inspector converts a delegate's start and end first (its default
                // delegate_time_scale_converter divides each by the factor), an
                // operator's difference after.
                bool wrapped = false;
                e.raw.push_back(e.is_delegated_op
                                    ? elapsedTime(static_cast<double>(p->start_time) / factor,
                                                  static_cast<double>(p->end_time) / factor, wrapped)
                                    : elapsedTime(p->start_time, p->end_time, wrapped) / factor);
                wrappedBadly |= wrapped;
                e.ends_before_start |= p->end_time < p->start_time;
                e.start_times.push_back(p->start_time);
            }
            applySignature(e, sig.debug);
            if (!e.raw.empty())
                e.perf = perfStats(e.raw);
            e.framework =
                e.name == "Method::init" || e.name == "Program::load_method" || e.name == "Method::execute";
            // _gen_resolve_debug_handles: a delegate's backend, for its call and its own events.
            if (maps && maps->debug_handle_map.count(e.instruction_id)) {
                const auto d = maps->delegate_map.find(e.instruction_id);
                if (d != maps->delegate_map.end() && (e.is_delegated_op || e.name == "DELEGATE_CALL"))
                    e.delegate_backend_name = d->second.backend;
            }
            block.events.push_back(std::move(e));
        }
        table.blocks.push_back(std::move(block));
    }
    if (wrappedBadly)
        table.notes.push_back(
            "an event ends before it starts with times beyond 32 bits: ExecuTorch's Inspector "
            "raises; Gapscope shows the 32-bit wraparound duration");
    return table;
}

} // namespace gapscope
