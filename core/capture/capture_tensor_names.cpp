#include "core/capture/capture_tensor_names.h"

#include "core/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace gapscope {

namespace {

// Paths are built only for a fault: a name the file lacks is rare, and a path
// string per value was a cost of reading a 50,000-record capture.
class NameResolver {
public:
    explicit NameResolver(const SafetensorsFile& file) : m_file(file) {}

    // `path` renders the list's JSON path when a fault needs it (a function, not
    // a template parameter: lists nest, and each level would be a new type).
    // The nesting is bounded: the document reader refuses lists past
    // kMaxJsonDepth.
    bool list(std::vector<CaptureValue>& values, const std::function<std::string()>& path) {
        for (std::size_t k = 0; k < values.size(); ++k) {
            CaptureValue& v = values[k];
            const auto here = [&] { return path() + "[" + std::to_string(k) + "]"; };
            if (v.kind == CaptureValue::Kind::Tensor && !(v.resolved = m_file.find(v.tensor))) {
                m_fault = JsonFault{here(), "names tensor '" + v.tensor + "', which the file does not hold",
                                    ErrorCode::Malformed};
                return false;
            }
            if (!v.items.empty() && !list(v.items, [&] { return here() + ".items"; }))
                return false;
        }
        return true;
    }

    std::optional<JsonFault> fault() { return std::move(m_fault); }

private:
    const SafetensorsFile& m_file;
    std::optional<JsonFault> m_fault;
};

} // namespace

std::optional<JsonFault> resolveTensorNames(AotCapture& capture, const SafetensorsFile& file) {
    NameResolver names(file);
    // The document's own order of fields: inputs, reference_outputs, records
    // (the writer's, aotCaptureDocument's).
    if (capture.inputs && !names.list(*capture.inputs, [] { return std::string("inputs"); }))
        return names.fault();
    if (capture.reference_outputs &&
        !names.list(*capture.reference_outputs, [] { return std::string("reference_outputs"); }))
        return names.fault();
    // The records on every core, in blocks: 50,000 lookups were 5 ms on one
    // core at the end of the sort. Each block keeps its own first fault; the
    // first block's in document order is the fault.
    constexpr std::size_t kBlock = 2048;
    const std::size_t blocks = (capture.records.size() + kBlock - 1) / kBlock;
    std::vector<std::optional<JsonFault>> faults(blocks);
    std::atomic<std::size_t> firstFaulty{blocks};
    parallelFor(blocks, [&](std::size_t b) {
        if (b > firstFaulty.load(std::memory_order_relaxed))
            return; // a fault earlier in the document is the one reported
        NameResolver inBlock(file);
        for (std::size_t i = b * kBlock; i < std::min(capture.records.size(), (b + 1) * kBlock); ++i)
            if (!inBlock.list(capture.records[i].outputs,
                              [&] { return "records[" + std::to_string(i) + "].outputs"; })) {
                faults[b] = inBlock.fault();
                std::size_t seen = firstFaulty.load();
                while (b < seen && !firstFaulty.compare_exchange_weak(seen, b)) {
                }
                return;
            }
    });
    for (auto& fault : faults)
        if (fault)
            return std::move(fault);
    return std::nullopt;
}

} // namespace gapscope
