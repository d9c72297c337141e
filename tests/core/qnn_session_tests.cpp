// Real QNN-delegated sessions (ExecuTorch 1.5.1's Qualcomm backend on the QNN HTP
// simulator): the committed QNN demo (resources/demo_qnn, with ExecuTorch's QNN
// debugger's own table) and a multi-output session (tests/data/qnn_multiout_8a8w).

#include "core/capture/aot_capture.h"
#include "core/compare/comparison.h"
#include "core/etdump/etdump_reader.h"
#include "core/etrecord/etrecord_reader.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace gapscope;

namespace {

using QnnSession = test::SessionDir;

QnnSession loadQnnSession(const std::string& dir) {
    return test::loadSessionDir(dir);
}

Comparison compare(const QnnSession& s, const AotCapture& capture) {
    auto c = compareSession(s.dump, &s.etrecord, capture);
    REQUIRE(c);
    return std::move(c.value());
}

const ComparisonRow* rowWithHandle(const Comparison& c, std::int64_t handle) {
    for (const auto& row : c.rows)
        if (row.id().aot_debug_handle == std::vector<std::int64_t>{handle})
            return &row;
    return nullptr;
}

// The device tensor of a row (the first, for a row of several outputs).
const Tensor& firstRuntimeTensor(const ComparisonRow& row) {
    REQUIRE(row.id().pair);
    const auto& v = row.id().pair->runtime_value;
    const auto& first = v.isTensor() ? v : v.items.at(0);
    REQUIRE(first.isTensor());
    return *first.tensor;
}

// The debugger's CSV (pandas quoting: fields with commas or newlines in double quotes).
std::vector<std::map<std::string, std::string>> readCsv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<std::vector<std::string>> records(1);
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (quoted) {
            if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"')
                field += text[++i];
            else if (ch == '"')
                quoted = false;
            else
                field += ch;
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            records.back().push_back(std::move(field));
            field.clear();
        } else if (ch == '\n') {
            records.back().push_back(std::move(field));
            field.clear();
            records.emplace_back();
        } else if (ch != '\r') {
            field += ch;
        }
    }
    if (!field.empty() || !records.back().empty())
        records.back().push_back(field);
    std::vector<std::map<std::string, std::string>> out;
    for (std::size_t r = 1; r < records.size(); ++r) {
        if (records[r].empty())
            continue;
        REQUIRE(records[r].size() == records[0].size());
        std::map<std::string, std::string> row;
        for (std::size_t k = 0; k < records[0].size(); ++k)
            row[records[0][k]] = records[r][k];
        out.push_back(std::move(row));
    }
    return out;
}

const std::string kDemo = GAPSCOPE_QNN_DEMO_DIR;
const std::string kMultiOut = GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w";

} // namespace

TEST_CASE("QNN demo: every node ExecuTorch's QNN debugger scores has Gapscope's cosine within 1e-5",
          "[qnn][parity]") {
    const auto s = loadQnnSession(kDemo);
    const auto c = compare(s, s.capture);
    std::size_t scored = 0;
    for (const auto& node : readCsv(kDemo + "/qnn_debugger_cosine.csv")) {
        if (node.at("cosine_similarity").empty())
            continue;
        ++scored;
        INFO("node " << node.at("name") << " handle " << node.at("debug_handle"));
        const auto* row = rowWithHandle(c, std::stoll(node.at("debug_handle")));
        REQUIRE(row);
        CHECK(row->status == RowStatus::Ok);
        REQUIRE(row->gaps.size() == 1);
        CHECK(std::fabs(row->gaps.front().cosine - std::stod(node.at("cosine_similarity"))) <= 1e-5);
    }
    CHECK(scored == 36);
    // The uint8 device tensors were dequantised, the channels-last ones re-laid out.
    const auto* conv = rowWithHandle(c, 25);
    REQUIRE(conv);
    CHECK(conv->id().aot_ops == std::vector<std::string>{"aten_convolution_default"});
    CHECK(conv->id().dtypes().front() == "float32 vs uint8 (dequantized)");
    REQUIRE(conv->id().pair);
    REQUIRE(conv->id().pair->runtime_value.isTensor());
    CHECK(conv->id().pair->runtime_value.tensor->sizes == std::vector<std::int64_t>{1, 16, 16, 16});
    CHECK(conv->id().shapes().front() == "1x16x16x16");
    CHECK(conv->gaps.front().rmse_steps.has_value());
    CHECK(conv->gaps.front().saturation.has_value());
    CHECK(c.warnings.empty());
}

TEST_CASE("QNN demo: layer_norm's one QNN tensor is compared with the reference's first output",
          "[qnn][multi-output]") {
    const auto s = loadQnnSession(kDemo);
    const auto c = compare(s, s.capture);
    std::size_t layerNorms = 0;
    for (const auto& row : c.rows) {
        if (row.id().aot_ops != std::vector<std::string>{"aten_native_layer_norm_default"} &&
            row.id().aot_ops != std::vector<std::string>{"aten_native_layer_norm_default_1"})
            continue;
        ++layerNorms;
        CHECK(row.status == RowStatus::Ok);
        CHECK_FALSE(row.in_executorch); // ExecuTorch skips a three-output reference
        REQUIRE(row.gaps.size() == 1);  // output only, not mean and rstd
        CHECK(row.id().shapes() == std::vector<std::string>{"1x64x32"});
        CHECK(row.gaps.front().cosine > 0.999);
        CHECK(row.reason.find("output 0 of the node's 3") != std::string::npos);
    }
    CHECK(layerNorms == 2);
}

TEST_CASE("QNN demo: tensors QNN added are delegate_internal coverage, nothing is unresolved",
          "[qnn][coverage]") {
    const auto s = loadQnnSession(kDemo);
    const auto c = compare(s, s.capture);
    std::vector<std::string> internal;
    for (const auto& item : c.coverage) {
        CHECK(item.kind != CoverageKind::UnresolvedEvent);
        CHECK(item.kind != CoverageKind::InvalidComparison);
        if (item.kind == CoverageKind::DelegateInternal)
            internal.push_back(item.what);
    }
    REQUIRE_FALSE(internal.empty());
    for (const auto& name : internal) {
        INFO(name);
        const bool added = name.rfind("quantized_decomposed_quantize_per_tensor", 0) == 0 ||
                           name.rfind("aten_permute_copy_default", 0) == 0 || name.rfind("output_", 0) == 0;
        CHECK(added);
    }
}

TEST_CASE("QNN demo: raw integers are never compared with floats, whatever the shapes", "[qnn][silent]") {
    const auto s = loadQnnSession(kDemo);
    AotCapture stripped = s.capture;
    for (auto& r : stripped.records)
        r.quantization.clear();
    const auto c = compare(s, stripped);
    std::size_t uint8Rows = 0;
    for (const auto& row : c.rows) {
        if (firstRuntimeTensor(row).scalar_type == static_cast<std::int8_t>(ScalarType::Byte)) {
            ++uint8Rows;
            INFO(row.id().aot_ops.front());
            CHECK(row.status == RowStatus::Invalid);
            CHECK(row.gaps.empty());
            CHECK(row.reason.find("no quantisation parameters") != std::string::npos);
        }
    }
    CHECK(uint8Rows >= 36);
}

TEST_CASE("QNN demo: a capture that does not record QNN's layout gives no number for rank 3-5 tensors",
          "[qnn][silent]") {
    const auto s = loadQnnSession(kDemo);
    AotCapture unknown = s.capture;
    unknown.layout_recorded = false;
    for (auto& r : unknown.records)
        r.axis_order.reset();
    const auto c = compare(s, unknown);
    std::size_t refused = 0, compared = 0;
    for (const auto& row : c.rows) {
        REQUIRE(row.id().pair);
        const auto rank = firstRuntimeTensor(row).sizes.size();
        INFO(row.id().aot_ops.front() << " rank " << rank);
        if (rank >= 3) {
            CHECK(row.status == RowStatus::Invalid);
            CHECK(row.reason.find("channels-last") != std::string::npos);
            ++refused;
        } else {
            CHECK(row.status == RowStatus::Ok);
            ++compared;
        }
    }
    CHECK(refused > 0);
    CHECK(compared > 0);
    // The recorded layout, by contrast: conv's 1x16x16x16 (NHWC happens to equal
    // NCHW here) is re-laid out and agrees.
    const auto ok = compare(s, s.capture);
    const auto* conv = rowWithHandle(ok, 25);
    REQUIRE(conv);
    REQUIRE(conv->id().pair);
    CHECK(conv->status == RowStatus::Ok);
    CHECK(conv->id().pair->aot.record->axis_order == std::vector<std::int64_t>{0, 2, 3, 1});
}

TEST_CASE("QNN demo: an axis_order that does not fit the runtime tensor is invalid", "[qnn][silent]") {
    const auto s = loadQnnSession(kDemo);
    AotCapture wrong = s.capture;
    for (auto& r : wrong.records)
        if (r.debug_handle == std::vector<std::int64_t>{25})
            r.axis_order = std::vector<std::int64_t>{0, 2, 1};
    const auto c = compare(s, wrong);
    const auto* conv = rowWithHandle(c, 25);
    REQUIRE(conv);
    CHECK(conv->status == RowStatus::Invalid);
    CHECK(conv->reason.find("layout cannot be established") != std::string::npos);
}

TEST_CASE("QNN demo: a capture of another graph than QNN's is flagged", "[qnn]") {
    const auto s = loadQnnSession(kDemo);
    AotCapture other = s.capture;
    other.reference_graph = "exported_program";
    const auto c = compare(s, other);
    REQUIRE(c.warnings.size() == 1);
    CHECK(c.warnings.front().find("edge_after_transform/forward") != std::string::npos);
}

TEST_CASE("QNN multi-output session: split and topk resolve by node name, where ExecuTorch raises",
          "[qnn][multi-output]") {
    const auto s = loadQnnSession(kMultiOut);
    const auto c = compare(s, s.capture);
    std::map<std::string, const ComparisonRow*> byOp;
    for (const auto& row : c.rows) {
        INFO(row.id().aot_ops.front() << ": " << row.reason);
        CHECK(row.status == RowStatus::Ok);
        byOp[row.id().aot_ops.front()] = &row;
    }
    const auto* split = byOp["aten_split_with_sizes_copy_default"];
    REQUIRE(split);
    CHECK(split->id().runtime_ops == std::vector<std::string>{"aten_split_with_sizes_copy_default@0,1,2"});
    CHECK(split->gaps.size() == 3);
    CHECK_FALSE(split->in_executorch);
    for (const auto& g : split->gaps)
        CHECK(g.cosine > 0.999);
    const auto* topk = byOp["aten_topk_default"];
    REQUIRE(topk);
    REQUIRE(topk->gaps.size() == 2);
    CHECK(topk->id().dtypes()[1] == "int64 vs int32");
    CHECK(topk->gaps[1].mse == 0.0); // the same indices
    for (const auto& e : c.events())
        if (e.name.rfind("aten_split", 0) == 0 || e.name.rfind("aten_topk", 0) == 0)
            CHECK(e.resolved.source == HandleSource::QnnNodeName);
    for (const auto& item : c.coverage)
        CHECK(item.kind != CoverageKind::UnresolvedEvent);
    // The delegate swapped topk's program outputs: the intermediates agree, the
    // program outputs do not, and Gapscope says so.
    REQUIRE(c.outputs.size() == 3);
    CHECK(c.outputs[0].metrics->snr < 1.0);
    CHECK(c.outputs[1].metrics->mse > 1e30);
    CHECK(c.outputs[2].metrics->snr > 30.0);
}
