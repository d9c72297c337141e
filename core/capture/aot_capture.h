#pragma once

#include "core/capture/capture_tap.h"
#include "core/capture/safetensors_file.h"
#include "core/common/result.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gapscope {

// The AOT capture (docs/formats/aot-capture.md): reference intermediate outputs
// keyed by debug handle, stored in a safetensors file.

struct CaptureValue {
    enum class Kind { Tensor, Int, Float, Bool, Null, List };
    Kind kind = Kind::Null;
    std::string tensor; // name in the safetensors file, for Tensor
    // That tensor in the capture's file, found once by the reader (which checks
    // every name); null for a value built in memory. Planning a 50,000-op
    // session looked each name up two or three times in the file's map.
    const SafetensorsTensor* resolved = nullptr;
    std::int64_t int_value = 0;
    double float_value = 0;
    bool bool_value = false;
    std::vector<CaptureValue> items; // for List
};

// The codes a quantised dtype holds (int8, uint8, int16, uint16, int32);
// none for a name that is not one.
std::optional<std::pair<std::int64_t, std::int64_t>> quantizedRange(const std::string& dtype);

struct QuantParams {
    bool per_channel = false;
    std::vector<double> scale;            // one entry per tensor, or one per channel
    std::vector<std::int64_t> zero_point; // same length as scale
    std::optional<std::int64_t> axis;     // per-channel axis
    std::string dtype;                    // "int8", "uint8", ...
    std::int64_t qmin = 0;
    std::int64_t qmax = 0;
};

struct CaptureRecord {
    std::vector<std::int64_t> debug_handle;
    std::vector<std::string> ops;
    std::vector<std::pair<std::string, std::optional<std::string>>> stack_traces;
    bool sequence = false; // the node returned a tuple/list; outputs are its elements
    std::vector<CaptureValue> outputs;
    std::vector<std::optional<QuantParams>> quantization; // empty, or one per output
    std::optional<std::vector<std::int64_t>> axis_order;
    // Why the reference has no value for this key (every output is null): a float
    // reference whose float counterpart could not be established. The row is
    // invalid with this reason, never a number.
    std::optional<std::string> invalid_reason;
    // Why the runtime tensor paired with this record cannot be compared, as a
    // backend that reads its own run knows it (core/backends/backend_run.h: a
    // TOSA tensor whose layout against torch's cannot be told). Never in the
    // file: set in memory, on a copy of the capture. The row is invalid with it.
    std::optional<std::string> runtime_problem;
};

struct AotCapture {
    static constexpr int kVersion = 1;
    static constexpr const char* kMetadataKey = "gapscope.aot_capture";

    int version = kVersion;
    std::map<std::string, std::string> producer;
    std::optional<std::string> reference_graph;
    std::string method = "forward";
    std::optional<std::string> etrecord_sha256;
    // The ETRecord's table of contents (ZipArchive::entriesSha256): names the
    // ETRecord as etrecord_sha256 does, checked without reading it whole.
    std::optional<std::string> etrecord_entries_sha256;
    // True when every record's axis_order was read from the graph the backend
    // lowered, so a null axis_order means "same layout". False (absent): null may
    // mean "unknown", as in a capture of a serialised ETRecord, which drops it.
    bool layout_recorded = false;
    // The execution this capture is of, counted from 0, when it is one of a
    // sequence captured with the program's state carried from step to step
    // (gapscope-capture from-etrecord with several --inputs): run k of the method
    // in the ETDump is compared with step k.
    std::optional<std::uint64_t> step;
    std::optional<std::vector<CaptureValue>> inputs;
    std::optional<std::vector<CaptureValue>> reference_outputs;
    std::vector<CaptureRecord> records;
    // Which reference outputs are taps (ExecuTorch's intermediate-output tap), in
    // file order; each output_index is below reference_outputs' size, and unique.
    std::vector<CaptureTap> taps;

    // The file the tensors live in (null for a capture being built in memory).
    std::shared_ptr<const SafetensorsFile> file;

    const SafetensorsTensor* tensor(const CaptureValue& v) const;
    // Each record's debug handle, in record order, borrowed from the records
    // (the handle indices of alignment and of a row's op names).
    std::vector<const std::vector<std::int64_t>*> debugHandles() const;
};

// Reads and validates the document in __metadata__["gapscope.aot_capture"];
// every tensor a value names must exist in the file (capture_document_reader.h).
Result<AotCapture> readAotCapture(std::shared_ptr<const MappedFile> file);
Result<AotCapture> loadAotCapture(const std::string& path);

// The JSON document for the metadata key.
std::string aotCaptureDocument(const AotCapture& capture);

class SafetensorsWriter;
// Stores the document in `tensors`' metadata and writes the file atomically. The
// tensors the values name must have been added to `tensors`.
std::optional<Error> writeAotCapture(const std::string& path, const AotCapture& capture,
                                     SafetensorsWriter& tensors);

} // namespace gapscope
