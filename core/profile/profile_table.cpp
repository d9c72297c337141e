#include "core/profile/profile_table.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gapscope {

namespace {

// Python's `x or None` and `-1 → None` of the Inspector's signatures.
std::optional<std::int64_t> idOrNone(std::int32_t id) {
    return id != -1 ? std::optional<std::int64_t>(id) : std::nullopt;
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
    std::optional<std::string> delegate_str;
    bool operator<(const InstructionKey& o) const {
        return std::tie(instruction_id, chain_negative, chain_magnitude, delegate_int, delegate_str) <
               std::tie(o.instruction_id, o.chain_negative, o.chain_magnitude, o.delegate_int,
                        o.delegate_str);
    }
};

// ProfileEventSignature and DebugEventSignature have the same fields.
struct EventSig {
    std::string name;
    std::optional<std::int64_t> instruction_id, delegate_int;
    std::optional<std::string> delegate_str;
    bool operator==(const EventSig& o) const {
        return std::tie(name, instruction_id, delegate_int, delegate_str) ==
               std::tie(o.name, o.instruction_id, o.delegate_int, o.delegate_str);
    }
    bool operator<(const EventSig& o) const {
        return std::tie(name, instruction_id, delegate_int, delegate_str) <
               std::tie(o.name, o.instruction_id, o.delegate_int, o.delegate_str);
    }
};

struct EventSignature {
    std::int32_t instruction_id = 0;
    std::optional<EventSig> profile, debug;
    bool operator==(const EventSignature& o) const {
        return instruction_id == o.instruction_id && profile == o.profile && debug == o.debug;
    }
    bool operator<(const EventSignature& o) const {
        return std::tie(instruction_id, profile, debug) < std::tie(o.instruction_id, o.profile, o.debug);
    }
};

struct InstructionEvent {
    std::vector<const ProfileEvent*> profile;
    std::vector<const DebugEvent*> debug;
};

// One run's events by signature, in the order the Inspector's dict keeps them.
struct RunEvents {
    std::vector<EventSignature> order;
    std::map<EventSignature, const ProfileEvent*> profile; // null: no profile event
};

struct RunKey {
    std::optional<std::string> name;
    std::vector<EventSignature> events;
    std::int32_t bundled_input_index;
    bool operator<(const RunKey& o) const {
        return std::tie(name, events, bundled_input_index) <
               std::tie(o.name, o.events, o.bundled_input_index);
    }
};

RunEvents collate(const RunData& run, std::size_t runIndex, std::vector<std::string>& notes) {
    std::vector<InstructionKey> order;
    std::map<InstructionKey, InstructionEvent> byInstruction;
    std::size_t skipped = 0;
    for (const auto& event : run.events) {
        InstructionKey key{};
        if (const auto* p = std::get_if<ProfileEvent>(&event)) {
            key = {p->instruction_id, p->chain_index < 0,
                   static_cast<std::uint64_t>(p->chain_index < 0 ? -static_cast<std::int64_t>(p->chain_index)
                                                                 : p->chain_index),
                   p->delegate_debug_id_int, p->delegate_debug_id_str};
            auto [it, added] = byInstruction.try_emplace(key);
            if (added)
                order.push_back(key);
            it->second.profile.push_back(p);
        } else if (const auto* d = std::get_if<DebugEvent>(&event)) {
            key = {d->instruction_id, false, d->chain_index, d->delegate_debug_id_int,
                   d->delegate_debug_id_str};
            auto [it, added] = byInstruction.try_emplace(key);
            if (added)
                order.push_back(key);
            if (!(d->debug_entry && d->debug_entry->output)) // run outputs are not events
                it->second.debug.push_back(d);
        } else {
            ++skipped;
        }
    }
    if (skipped)
        notes.push_back("run " + std::to_string(runIndex) + " logs " + std::to_string(skipped) +
                        " allocation or empty events: ExecuTorch's Inspector raises on them "
                        "(find_populated_event); Gapscope leaves them out of the timing table");
    RunEvents out;
    for (const auto& key : order) {
        const InstructionEvent& ie = byInstruction.at(key);
        if (ie.profile.empty() && ie.debug.empty())
            continue; // run outputs only
        std::optional<EventSig> debugSig;
        if (!ie.debug.empty()) {
            const DebugEvent* d = ie.debug.front();
            debugSig = EventSig{d->name.value_or(""), idOrNone(d->instruction_id),
                                idOrNone(d->delegate_debug_id_int), strOrNone(d->delegate_debug_id_str)};
        }
        const auto add = [&](EventSignature sig, const ProfileEvent* p) {
            auto [it, added] = out.profile.insert_or_assign(sig, p);
            (void)it;
            if (added) // a later event of one signature replaces the earlier, in its place
                out.order.push_back(sig);
        };
        if (ie.profile.empty()) {
            add({key.instruction_id, std::nullopt, debugSig}, nullptr);
            continue;
        }
        for (const ProfileEvent* p : ie.profile)
            add({key.instruction_id,
                 EventSig{p->name.value_or(""), idOrNone(p->instruction_id),
                          idOrNone(p->delegate_debug_id_int), strOrNone(p->delegate_debug_id_str)},
                 debugSig},
                p);
    }
    return out;
}

// _populate_event_signature_fields: the name, the delegate id and whether delegated.
void applySignature(ProfiledEvent& e, const std::optional<EventSig>& sig) {
    if (!sig)
        return;
    e.delegate_id_int = sig->delegate_int;
    e.delegate_id_str = sig->delegate_int ? std::nullopt : sig->delegate_str;
    e.is_delegated_op = e.delegate_id_int || e.delegate_id_str;
    const std::string name = !e.is_delegated_op  ? sig->name
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
    struct Group {
        RunKey key;
        std::vector<std::size_t> runs;
        std::vector<RunEvents> events;
    };
    std::vector<Group> groups;
    std::map<RunKey, std::size_t> groupOf;
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        const RunData& run = dump.runs[r];
        if (run.events.empty())
            continue;
        RunEvents events = collate(run, r, table.notes);
        RunKey key{run.name, events.order, run.bundled_input_index};
        auto [it, added] = groupOf.try_emplace(key, groups.size());
        if (added)
            groups.push_back({key, {}, {}});
        groups[it->second].runs.push_back(r);
        groups[it->second].events.push_back(std::move(events));
    }
    const MethodMaps* maps = options.etrecord ? options.etrecord->maps("forward") : nullptr;
    bool wrappedBadly = false;
    for (const auto& g : groups) {
        ProfiledBlock block;
        block.name = g.key.name.value_or("");
        block.bundled_input_index = g.key.bundled_input_index;
        block.runs = g.runs;
        for (const auto& sig : g.key.events) {
            ProfiledEvent e;
            e.instruction_id = sig.instruction_id;
            applySignature(e, sig.profile);
            for (const auto& run : g.events) {
                const ProfileEvent* p = run.profile.at(sig);
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
