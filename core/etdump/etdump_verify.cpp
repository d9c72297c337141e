#include "core/etdump/etdump_verify.h"

#include "etdump_generated.h"

#include <algorithm>
#include <string>

namespace gapscope {

namespace fb = gapscope::etdump_fb;

namespace {

constexpr flatbuffers::uoffset_t kMaxDepth = 64;

flatbuffers::Verifier makeVerifier(ByteSpan buf) {
    // Every table needs at least 4 bytes, so a buffer cannot legitimately hold
    // more than size/4 of them; the bound also stops shared-subtree blow-ups.
    const auto maxTables = static_cast<flatbuffers::uoffset_t>(std::max<std::size_t>(buf.size / 4, 64));
    return flatbuffers::Verifier(buf.data, buf.size, kMaxDepth, maxTables, true);
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
            what = "RunData table or its vtable lies outside the buffer";
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
                    what =
                        "Event table (or a table, vector or string below it) is out of bounds or misaligned";
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
