#include "core/etdump/etdump_verify.h"

#include "etdump_generated.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace gapscope {

namespace fb = gapscope::etdump_fb;

namespace {

constexpr flatbuffers::uoffset_t kMaxDepth = 64;

// Table visits the verifier allows beyond one per 4 bytes (the most distinct
// tables a buffer can hold). ExecuTorch's writer never shares a table, but a
// valid FlatBuffer may (one RunData for many runs, one Event for many events),
// and each reference is visited: run 494 of such a dump was refused as lying
// outside the buffer (issue 55, class 9). 2^22 more visits (a 10^6-event dump
// whose events share their tables) take a fraction of a second, and still stop
// a shared-subtree blow-up (64 levels deep) in bounded time; what the events
// then hold is bounded by the reader's copy budget, which charges every event.
constexpr std::size_t kSharedVisits = std::size_t{1} << 22;

flatbuffers::uoffset_t tableBudget(ByteSpan buf) {
    return static_cast<flatbuffers::uoffset_t>(std::max<std::size_t>(buf.size / 4, 64) + kSharedVisits);
}

flatbuffers::Verifier makeVerifier(ByteSpan buf) {
    return flatbuffers::Verifier(buf.data, buf.size, kMaxDepth, tableBudget(buf), true);
}

// Why a table the budget stopped is refused: it lies inside the buffer, so what
// was hit is the reader's limit on table visits, not corruption.
std::string budgetReached(ByteSpan buf) {
    return "the ETDump's tables are referenced more than the reader verifies (" +
           std::to_string(tableBudget(buf)) + " table visits for " + std::to_string(buf.size) +
           " bytes): a FlatBuffer that shares tables among runs or events this much is valid, but past "
           "this reader's limit (not corruption)";
}

// The table at `t` lies inside the buffer, as a verifier without a visit budget
// sees it (VerifyTableStart visits that one table only).
bool insideBuffer(ByteSpan buf, const flatbuffers::Table* t) {
    flatbuffers::Verifier unbounded(buf.data, buf.size, kMaxDepth,
                                    std::numeric_limits<flatbuffers::uoffset_t>::max() - 1, true);
    return t->VerifyTableStart(unbounded);
}

// The generated tables inherit flatbuffers::Table privately; the field-level
// verification primitives live there.
const flatbuffers::Table* asTable(const void* t) {
    return reinterpret_cast<const flatbuffers::Table*>(t);
}

std::int64_t offsetOf(ByteSpan buf, const void* p) {
    return static_cast<std::int64_t>(reinterpret_cast<const std::uint8_t*>(p) - buf.data);
}

bool locate(ByteSpan buf, bool sizePrefixed, Location& where, std::string& what) {
    auto v = makeVerifier(buf);
    const std::size_t rootBase = sizePrefixed ? sizeof(flatbuffers::uoffset_t) : 0;
    if (buf.size < rootBase + 8) {
        where.byteOffset = 0;
        where.field = sizePrefixed ? "size prefix" : "root";
        what = sizePrefixed ? "the size prefix declares " + std::to_string(buf.size - rootBase) +
                                  " bytes, too few for a FlatBuffer root and identifier (8)"
                            : "buffer too small for a FlatBuffer root";
        return false;
    }
    const auto rootOffset = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(buf.data + rootBase);
    where.field = "root";
    where.byteOffset = static_cast<std::int64_t>(rootBase);
    if (rootOffset >= buf.size - rootBase) {
        what = "root table offset " + std::to_string(rootOffset) + " points past the end of the buffer";
        return false;
    }
    const auto* root = sizePrefixed ? fb::GetSizePrefixedETDump(buf.data) : fb::GetETDump(buf.data);
    const auto* rootT = asTable(root);
    where.byteOffset = offsetOf(buf, root);
    if (!rootT->VerifyTableStart(v)) {
        what = "root ETDump table or its vtable lies outside the buffer";
        return false;
    }
    where.field = "run_data";
    if (!rootT->VerifyField<std::uint32_t>(v, fb::ETDump::VT_VERSION, 4) ||
        !rootT->VerifyOffset(v, fb::ETDump::VT_RUN_DATA) || !v.VerifyVector(root->run_data())) {
        what = "ETDump.run_data vector lies outside the buffer";
        return false;
    }
    const auto* runs = root->run_data();
    if (!runs)
        return true;
    for (flatbuffers::uoffset_t r = 0; r < runs->size(); ++r) {
        const auto* run = runs->Get(r);
        where.run = r;
        where.field.clear();
        where.byteOffset = offsetOf(buf, run);
        if (run->Verify(v))
            continue;
        const auto* runT = asTable(run);
        if (!runT->VerifyTableStart(v)) {
            what = insideBuffer(buf, runT) ? budgetReached(buf)
                                           : "RunData table or its vtable lies outside the buffer";
            return false;
        }
        where.field = "name";
        if (!runT->VerifyOffset(v, fb::RunData::VT_NAME) || !v.VerifyString(run->name())) {
            what = "RunData.name string is out of bounds or not terminated";
            return false;
        }
        where.field = "allocators";
        if (!runT->VerifyOffset(v, fb::RunData::VT_ALLOCATORS) || !v.VerifyVector(run->allocators()) ||
            !v.VerifyVectorOfTables(run->allocators())) {
            what = "RunData.allocators is out of bounds";
            return false;
        }
        where.field = "events";
        if (!runT->VerifyOffset(v, fb::RunData::VT_EVENTS) || !v.VerifyVector(run->events())) {
            what = "RunData.events vector lies outside the buffer";
            return false;
        }
        where.field.clear();
        if (const auto* events = run->events()) {
            for (flatbuffers::uoffset_t e = 0; e < events->size(); ++e) {
                const auto* event = events->Get(e);
                if (!event->Verify(v)) {
                    where.event = e;
                    where.byteOffset = offsetOf(buf, event);
                    // Diagnosed with four times the budget, not without one: a
                    // blown-up shared subtree must not hang the diagnosis either.
                    const auto wider = static_cast<flatbuffers::uoffset_t>(
                        std::min<std::uint64_t>(std::uint64_t{tableBudget(buf)} * 4,
                                                std::numeric_limits<flatbuffers::uoffset_t>::max() - 1));
                    flatbuffers::Verifier bigger(buf.data, buf.size, kMaxDepth, wider, true);
                    what = event->Verify(bigger) ? budgetReached(buf)
                                                 : "Event table (or a table, vector or string below it) "
                                                   "is out of bounds or misaligned";
                    return false;
                }
            }
        }
        what = "RunData table fails verification (table count or depth limit exceeded)";
        return false;
    }
    where = Location{};
    what = "buffer fails verification (table count or depth limit exceeded)";
    return false;
}

} // namespace

bool verifyEtdumpFlatbuffer(ByteSpan flatbuffer, bool sizePrefixed, Location& failure, std::string& what) {
    auto v = makeVerifier(flatbuffer);
    const bool ok = sizePrefixed ? fb::VerifySizePrefixedETDumpBuffer(v) : fb::VerifyETDumpBuffer(v);
    if (ok)
        return true;
    if (locate(flatbuffer, sizePrefixed, failure, what))
        what = "buffer fails FlatBuffers verification";
    return false;
}

} // namespace gapscope
