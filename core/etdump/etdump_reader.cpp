#include "core/etdump/etdump_reader.h"

#include "core/common/checked_math.h"
#include "core/common/field_path.h"
#include "core/etdump/etdump_verify.h"
#include "core/etdump/scalar_type.h"
#include "etdump_generated.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace gapscope {

namespace fb = gapscope::etdump_fb;

namespace {

constexpr char kIdentifier[] = "ED00";
constexpr std::size_t kHeaderBytes = 12; // size prefix + root offset + identifier
constexpr std::uint32_t kKnownVersion = 0;
constexpr std::uint64_t kProgressEvery = 1024;

Error locatedError(ErrorCode code, std::string message, Location where) {
    Error e;
    e.code = code;
    e.message = std::move(message);
    e.where = std::move(where);
    return e;
}

std::string hexBytes(const std::uint8_t* p, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

std::optional<std::string> toString(const flatbuffers::String* s) {
    if (!s)
        return std::nullopt;
    return s->str();
}

// The verifier (flatbuffers 2.0.8) checks a vector's bounds but only 4-byte
// alignment of its start, so a hostile file can misalign int64 elements: copy
// them out bytewise instead of dereferencing.
std::vector<std::int64_t> readInt64Vector(const flatbuffers::Vector<std::int64_t>* v) {
    std::vector<std::int64_t> out;
    if (!v)
        return out;
    out.resize(v->size());
    if (!out.empty())
        std::memcpy(out.data(), v->Data(), out.size() * sizeof(std::int64_t));
    return out;
}

// Converts one verified FlatBuffer into the model, resolving tensors against the
// debug buffer and collecting warnings with their locations.
class Converter {
public:
    Converter(ByteSpan buf, const EtdumpReadOptions& options, EtDump& out)
        : m_buf(buf), m_options(options), m_out(out),
          m_bufferSize(options.debug_buffer ? options.debug_buffer->size() : 0),
          m_copyBudget(std::max<std::uint64_t>(kMinCopyBudget, kCopyRatio * buf.size)) {}

    // What the model copies out of the file (strings, shapes, tensors) is
    // bounded: the verifier bounds the tables it visits, not how often events
    // share one, and a 56 KB file whose events all point at one large table
    // otherwise unpacks to gigabytes.
    static constexpr std::uint64_t kMinCopyBudget = 64ull << 20;
    static constexpr std::uint64_t kCopyRatio = 16;

    std::optional<Error> convert(const fb::ETDump* root) {
        m_out.version = root->version();
        if (m_out.version > kKnownVersion)
            warn(WarningCode::UnsupportedVersion,
                 "ETDump version " + std::to_string(m_out.version) + " is newer than version " +
                     std::to_string(kKnownVersion) +
                     ", the one this reader knows; fields added later are ignored",
                 at("version", root));
        const auto* runs = root->run_data();
        if (!runs)
            return std::nullopt;
        for (const auto* run : *runs)
            m_total += run->events() ? run->events()->size() : 0;
        m_out.runs.reserve(runs->size());
        for (flatbuffers::uoffset_t r = 0; r < runs->size(); ++r) {
            m_run = r;
            if (auto err = convertRun(runs->Get(r)))
                return err;
        }
        if (!report())
            return cancelled();
        return std::nullopt;
    }

private:
    Location at(const FieldPath& field, const void* table) const {
        Location l;
        l.file = m_options.name;
        l.run = m_run;
        l.event = m_event;
        l.field = field.str();
        if (table)
            l.byteOffset = static_cast<std::int64_t>(static_cast<const std::uint8_t*>(table) - m_buf.data);
        return l;
    }

    void warn(WarningCode code, std::string message, Location where) {
        m_out.warnings.push_back(Warning{code, std::move(message), std::move(where)});
    }

    bool report() {
        if (!m_options.progress)
            return true;
        return m_options.progress(m_done, m_total);
    }

    Error cancelled() const {
        return locatedError(ErrorCode::Cancelled,
                            "reading cancelled after " + std::to_string(m_done) + " of " +
                                std::to_string(m_total) + " events",
                            at("", nullptr));
    }

    std::optional<Error> convertRun(const fb::RunData* in) {
        RunData run;
        run.name = chargedString(in->name());
        run.bundled_input_index = in->bundled_input_index();
        if (const auto* allocators = in->allocators()) {
            for (const auto* a : *allocators)
                run.allocators.push_back(chargedString(a->name()).value_or(std::string()));
        }
        if (const auto* events = in->events()) {
            run.events.reserve(events->size());
            for (flatbuffers::uoffset_t e = 0; e < events->size(); ++e) {
                m_event = e;
                run.events.push_back(convertEvent(events->Get(e), run));
                if (!charge(sizeof(Event))) // held events too: shared tables could make millions of a few KB
                    return overBudget();
                ++m_done;
                if (m_done % kProgressEvery == 0 && !report())
                    return cancelled();
            }
        }
        m_event = -1;
        m_out.runs.push_back(std::move(run));
        return std::nullopt;
    }

    Event convertEvent(const fb::Event* in, const RunData& run) {
        const int members =
            (in->profile_event() ? 1 : 0) + (in->allocation_event() ? 1 : 0) + (in->debug_event() ? 1 : 0);
        if (members == 0) {
            warn(WarningCode::EventWithoutMember,
                 "Event has none of profile_event, allocation_event, debug_event", at("", in));
            return EmptyEvent{};
        }
        if (members > 1)
            warn(WarningCode::EventWithManyMembers,
                 "Event has " + std::to_string(members) + " members; using the first in schema order",
                 at("", in));
        if (const auto* p = in->profile_event())
            return convertProfile(p);
        if (const auto* a = in->allocation_event())
            return convertAllocation(a, run);
        return convertDebug(in->debug_event());
    }

    ProfileEvent convertProfile(const fb::ProfileEvent* in) {
        ProfileEvent p;
        p.name = chargedString(in->name());
        p.chain_index = in->chain_index();
        p.instruction_id = in->instruction_id();
        p.delegate_debug_id_int = in->delegate_debug_id_int();
        p.delegate_debug_id_str = chargedString(in->delegate_debug_id_str());
        if (const auto* md = in->delegate_debug_metadata(); md && charge(md->size()))
            p.delegate_debug_metadata = std::vector<std::uint8_t>(md->begin(), md->end());
        p.start_time = in->start_time();
        p.end_time = in->end_time();
        return p;
    }

    AllocationEvent convertAllocation(const fb::AllocationEvent* in, const RunData& run) {
        AllocationEvent a;
        a.allocator_id = in->allocator_id();
        a.allocation_size = in->allocation_size();
        if (a.allocator_id < 1 || static_cast<std::size_t>(a.allocator_id) > run.allocators.size())
            warn(WarningCode::AllocatorIdOutOfRange,
                 "allocator_id " + std::to_string(a.allocator_id) + " is not in 1.." +
                     std::to_string(run.allocators.size()) + " (ids are 1-based into the run's allocators)",
                 at("allocation_event.allocator_id", in));
        return a;
    }

    DebugEvent convertDebug(const fb::DebugEvent* in) {
        DebugEvent d;
        d.chain_index = in->chain_index();
        d.instruction_id = in->instruction_id();
        d.delegate_debug_id_int = in->delegate_debug_id_int();
        d.delegate_debug_id_str = chargedString(in->delegate_debug_id_str());
        d.name = chargedString(in->name());
        if (const auto* v = in->debug_entry())
            d.debug_entry = convertValue(v, "debug_event.debug_entry");
        return d;
    }

    Value convertValue(const fb::Value* in, const FieldPath& field) {
        Value v;
        v.val = in->val();
        if (const auto* marker = in->output()) {
            v.has_output_marker = true;
            v.output = marker->bool_val();
        }
        auto missing = [&](const char* payload) {
            v.known = false;
            warn(WarningCode::ValuePayloadMissing,
                 std::string("Value.val is ") + valueTypeName(v.type()) + " but its " + payload +
                     " table is absent",
                 at(FieldPath(field, payload), in));
        };
        switch (v.val) {
        case static_cast<std::int8_t>(ValueType::Null):
        case static_cast<std::int8_t>(ValueType::String): // the schema has no payload for String
            break;
        case static_cast<std::int8_t>(ValueType::Int):
            if (const auto* p = in->int_value())
                v.int_val = p->int_val();
            else
                missing("int_value");
            break;
        case static_cast<std::int8_t>(ValueType::Bool):
            if (const auto* p = in->bool_value())
                v.bool_val = p->bool_val();
            else
                missing("bool_value");
            break;
        case static_cast<std::int8_t>(ValueType::Float):
            if (const auto* p = in->float_value())
                v.float_val = p->float_val();
            else
                missing("float_value");
            break;
        case static_cast<std::int8_t>(ValueType::Double):
            if (const auto* p = in->double_value())
                v.double_val = p->double_val();
            else
                missing("double_value");
            break;
        case static_cast<std::int8_t>(ValueType::Tensor):
            if (const auto* t = in->tensor())
                v.tensors.push_back(convertTensor(t, FieldPath(field, "tensor")));
            else
                missing("tensor");
            break;
        case static_cast<std::int8_t>(ValueType::TensorList):
            if (const auto* list = in->tensor_list()) {
                if (const auto* tensors = list->tensors()) {
                    const FieldPath listPath(field, "tensor_list"), items(listPath, "tensors");
                    for (flatbuffers::uoffset_t i = 0; i < tensors->size() && m_copied <= m_copyBudget; ++i)
                        v.tensors.push_back(convertTensor(tensors->Get(i), FieldPath(items, std::size_t{i})));
                }
            } else {
                missing("tensor_list");
            }
            break;
        default:
            v.known = false;
            warn(WarningCode::UnknownValueType,
                 "Value.val " + std::to_string(v.val) + " is not a ValueType (0..7); the value is skipped",
                 at(FieldPath(field, "val"), in));
        }
        return v;
    }

    Tensor convertTensor(const fb::Tensor* in, const FieldPath& field) {
        Tensor t;
        charge(sizeof(Tensor) + sizeof(std::int64_t) * ((in->sizes() ? in->sizes()->size() : 0) +
                                                        (in->strides() ? in->strides()->size() : 0)));
        t.scalar_type = in->scalar_type();
        t.sizes = readInt64Vector(in->sizes());
        t.strides = readInt64Vector(in->strides());
        t.offset = in->offset();
        resolve(t, field, in);
        return t;
    }

    void invalid(Tensor& t, WarningCode code, std::string problem, const FieldPath& field,
                 const void* table) {
        t.data = TensorData::Invalid;
        t.problem = problem;
        warn(code, std::move(problem), at(field, table));
    }

    void resolve(Tensor& t, const FieldPath& field, const fb::Tensor* table) {
        if (t.strides.size() != t.sizes.size())
            warn(WarningCode::StridesRankMismatch,
                 "strides has " + std::to_string(t.strides.size()) + " entries for " +
                     std::to_string(t.sizes.size()) + " sizes; strides are ignored for reading",
                 at(FieldPath(field, "strides"), table));

        std::uint64_t numel = 1;
        for (std::size_t d = 0; d < t.sizes.size(); ++d) {
            if (t.sizes[d] < 0)
                return invalid(t, WarningCode::InvalidTensorShape,
                               "negative size " + std::to_string(t.sizes[d]) + " in dimension " +
                                   std::to_string(d),
                               FieldPath(FieldPath(field, "sizes"), d), table);
            auto next = checkedMul(numel, static_cast<std::uint64_t>(t.sizes[d]));
            if (!next)
                return invalid(t, WarningCode::InvalidTensorShape, "element count overflows 64 bits",
                               FieldPath(field, "sizes"), table);
            numel = *next;
        }
        t.numel = numel;

        if (!scalarTypeInfo(t.scalar_type))
            return invalid(t, WarningCode::UnknownScalarType,
                           "scalar_type " + std::to_string(t.scalar_type) +
                               " is not an ExecuTorch ScalarType this reader can decode",
                           FieldPath(field, "scalar_type"), table);
        t.nbytes = storageBytes(t.scalar_type, numel);
        if (!t.nbytes)
            return invalid(t, WarningCode::InvalidTensorShape,
                           std::to_string(numel) + " elements of " + scalarTypeName(t.scalar_type) +
                               " overflow a 64-bit byte count",
                           FieldPath(field, "sizes"), table);

        if (numel == 0 || t.offset == -1) {
            t.data = TensorData::Empty;
            return;
        }
        if (t.offset < 0)
            return invalid(t, WarningCode::InvalidTensorShape,
                           "negative offset " + std::to_string(t.offset) +
                               " (only -1, 'nothing written', is valid)",
                           FieldPath(field, "offset"), table);
        if (!m_options.debug_buffer) {
            t.data = TensorData::None;
            return;
        }
        const auto end = checkedAdd(static_cast<std::uint64_t>(t.offset), *t.nbytes);
        if (!end || *end > m_bufferSize) {
            t.data = TensorData::Missing;
            t.problem = "needs bytes [" + std::to_string(t.offset) + ", " +
                        (end ? std::to_string(*end) : std::string("overflow")) + ") but the debug buffer " +
                        m_options.debug_buffer->path() + " has " + std::to_string(m_bufferSize) + " bytes";
            warn(WarningCode::TensorDataMissing, t.problem, at(FieldPath(field, "offset"), table));
            return;
        }
        t.data = TensorData::Present;
    }

    ByteSpan m_buf;
    const EtdumpReadOptions& m_options;
    EtDump& m_out;
    std::uint64_t m_bufferSize;
    std::uint64_t m_copyBudget;
    std::uint64_t m_copied = 0;

    // Counts bytes copied out; true while within the budget.
    bool charge(std::uint64_t bytes) {
        m_copied += bytes;
        return m_copied <= m_copyBudget;
    }
    std::optional<std::string> chargedString(const flatbuffers::String* s) {
        if (s)
            charge(s->size());
        return toString(s);
    }
    Error overBudget() const {
        return locatedError(ErrorCode::TooLarge,
                            "the events copy out more than " + std::to_string(m_copyBudget) +
                                " bytes of names, shapes and tensors (" + std::to_string(kCopyRatio) +
                                " times the file, at least " + std::to_string(kMinCopyBudget >> 20) +
                                " MiB): its events share tables many times over",
                            at("", nullptr));
    }
    std::int64_t m_run = -1;
    std::int64_t m_event = -1;
    std::uint64_t m_done = 0;
    std::uint64_t m_total = 0;
};

Result<EtDump> parseAligned(ByteSpan bytes, const EtdumpReadOptions& options) {
    Location fileLoc;
    fileLoc.file = options.name;

    if (bytes.size == 0)
        return locatedError(
            ErrorCode::Empty,
            "file is empty; an ETDump starts with a 4-byte size prefix and the identifier ED00", fileLoc);
    if (bytes.size > FLATBUFFERS_MAX_BUFFER_SIZE - 1)
        return locatedError(
            ErrorCode::TooLarge,
            "file is " + std::to_string(bytes.size) + " bytes; a FlatBuffer cannot exceed 2 GiB", fileLoc);

    const bool prefixedId = bytes.size >= kHeaderBytes && std::memcmp(bytes.data + 8, kIdentifier, 4) == 0;
    const bool bareId = bytes.size >= 8 && std::memcmp(bytes.data + 4, kIdentifier, 4) == 0;

    EtDump dump;
    dump.etdump_path = options.name;
    ByteSpan flatbuffer = bytes;
    if (prefixedId) {
        const auto declared = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(bytes.data);
        const std::uint64_t end = static_cast<std::uint64_t>(declared) + 4;
        if (end > bytes.size) {
            Location l = fileLoc;
            l.byteOffset = 0;
            l.field = "size prefix";
            return locatedError(ErrorCode::Truncated,
                                "truncated: the size prefix declares " + std::to_string(declared) +
                                    " bytes after it but the file has only " + std::to_string(bytes.size - 4),
                                l);
        }
        if (end < bytes.size) {
            Location l = fileLoc;
            l.byteOffset = static_cast<std::int64_t>(end);
            dump.warnings.push_back(
                Warning{WarningCode::TrailingBytes,
                        std::to_string(bytes.size - end) +
                            " bytes after the end declared by the size prefix are ignored",
                        l});
        }
        flatbuffer = bytes.subspan(0, static_cast<std::size_t>(end));
        dump.size_prefixed = true;
    } else if (bareId) {
        dump.size_prefixed = false;
    } else if (bytes.size < kHeaderBytes) {
        return locatedError(
            ErrorCode::Truncated,
            "file is " + std::to_string(bytes.size) +
                " bytes, too short for an ETDump header (size prefix, root offset and ED00 identifier "
                "take 12 bytes)",
            fileLoc);
    } else {
        Location l = fileLoc;
        l.byteOffset = 8;
        return locatedError(
            ErrorCode::BadMagic,
            "not an ETDump: expected the identifier ED00 at bytes 8..11 (size-prefixed) or 4..7, found "
            "0x" +
                hexBytes(bytes.data + 8, 4) + " and 0x" + hexBytes(bytes.data + 4, 4),
            l);
    }

    Location failure = fileLoc;
    std::string what;
    if (!verifyEtdumpFlatbuffer(flatbuffer, dump.size_prefixed, failure, what)) {
        failure.file = options.name;
        return locatedError(ErrorCode::Malformed, "corrupt ETDump: " + what, failure);
    }

    const auto* root =
        dump.size_prefixed ? fb::GetSizePrefixedETDump(flatbuffer.data) : fb::GetETDump(flatbuffer.data);
    dump.debug_buffer = options.debug_buffer;
    Converter converter(flatbuffer, options, dump);
    if (auto err = converter.convert(root))
        return std::move(*err);
    return dump;
}

} // namespace

Result<EtDump> parseEtdump(ByteSpan bytes, const EtdumpReadOptions& options) {
    // FlatBuffers reads scalars in place; an unaligned caller buffer gets copied
    // to an aligned one instead of reading misaligned words.
    constexpr std::uintptr_t kAlign = 8;
    if (reinterpret_cast<std::uintptr_t>(bytes.data) % kAlign == 0)
        return parseAligned(bytes, options);
    std::vector<std::uint64_t> aligned((bytes.size + 7) / 8);
    std::memcpy(aligned.data(), bytes.data, bytes.size);
    return parseAligned({reinterpret_cast<const std::uint8_t*>(aligned.data()), bytes.size}, options);
}

Result<EtDump> loadEtdump(const std::string& etdumpPath, const std::optional<std::string>& debugBufferPath,
                          ProgressFn progress) {
    auto file = MappedFile::open(etdumpPath);
    if (!file)
        return file.error();
    file.value()->protectFromOutputs();
    EtdumpReadOptions options;
    options.name = etdumpPath;
    options.progress = std::move(progress);
    if (debugBufferPath) {
        auto buffer = MappedFile::open(*debugBufferPath);
        if (!buffer)
            return buffer.error();
        buffer.value()->protectFromOutputs();
        options.debug_buffer = buffer.value();
    }
    return parseEtdump(file.value()->bytes(), options);
}

} // namespace gapscope
