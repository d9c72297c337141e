// readAotCapture reads the capture's document on another core while the
// safetensors header's tensor entries are read, then finds the tensors the
// document names (resolveTensorNames). These tests pin that the result is the
// one reading the two in turn gives, whatever the header's order, and that a
// fault is said as before: the header's first, then the document's own, then
// a tensor the file lacks, each at its JSON path.

#include "committed_captures.h"
#include "core/capture/aot_capture.h"
#include "core/capture/capture_document_reader.h"
#include "core/capture/safetensors_writer.h"
#include "test_support.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <simdjson.h>

using namespace gapscope;

namespace {

std::shared_ptr<const MappedFile> fileOf(const std::string& header, std::size_t dataBytes) {
    return test::safetensorsFileOf("side.gscap.safetensors", header, dataBytes);
}

// A header of tensors t0..t3 (two float32 each), the document before them or after.
std::shared_ptr<const MappedFile> captureWith(const std::string& document, bool metadataFirst = true,
                                              const std::string& lastTensor = {}) {
    nlohmann::ordered_json header;
    const nlohmann::json metadata = {{AotCapture::kMetadataKey, document}};
    if (metadataFirst)
        header["__metadata__"] = metadata;
    for (int i = 0; i < 4; ++i)
        header["t" + std::to_string(i)] = {
            {"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {8 * i, 8 * i + 8}}};
    if (!metadataFirst)
        header["__metadata__"] = metadata;
    std::string text = header.dump();
    if (!lastTensor.empty())
        text = text.substr(0, text.size() - 1) + "," + lastTensor + "}";
    return fileOf(text, 32);
}

std::string documentWith(const std::string& inputs, const std::string& records) {
    return R"({"format":"gapscope.aot_capture","version":1,"inputs":)" + inputs + R"(,"records":)" + records +
           "}";
}

const std::string kList =
    R"({"kind":"list","items":[{"kind":"tensor","name":"t1"},{"kind":"tensor","name":"t2"}]})";

// Every tensor value of the capture, with the tensor the reader found for it.
void forEachTensor(const AotCapture& c, const std::function<void(const CaptureValue&)>& each) {
    std::function<void(const std::vector<CaptureValue>&)> walk =
        [&](const std::vector<CaptureValue>& values) {
            for (const auto& v : values) {
                if (v.kind == CaptureValue::Kind::Tensor)
                    each(v);
                walk(v.items);
            }
        };
    if (c.inputs)
        walk(*c.inputs);
    if (c.reference_outputs)
        walk(*c.reference_outputs);
    for (const auto& r : c.records)
        walk(r.outputs);
}

} // namespace

TEST_CASE("every committed capture reads as the document read after its header does",
          "[capture][side-by-side]") {
    for (const auto& real : test::committedCaptures()) {
        INFO(real->path());
        const auto beside = readAotCapture(real);
        REQUIRE(beside);
        const auto& file = *beside.value().file;
        // The read took the document out of the file's metadata (8 MB for a
        // 50,000-op session, kept for nothing before): the key stays, empty.
        CHECK(file.metadata().at(AotCapture::kMetadataKey).empty());
        const auto header = SafetensorsFile::read(real); // no hook: every value kept
        REQUIRE(header);
        const std::string& text = header.value().metadata().at(AotCapture::kMetadataKey);
        CHECK(text.capacity() - text.size() >= simdjson::SIMDJSON_PADDING); // room to pad in place
        const auto inTurn = readCaptureDocument(text, header.value(), real->path());
        REQUIRE(inTurn);
        CHECK(aotCaptureDocument(beside.value()) == aotCaptureDocument(inTurn.value()));
        // Every tensor a value names is found once, in the file kept with the capture.
        std::size_t tensors = 0;
        forEachTensor(beside.value(), [&](const CaptureValue& v) {
            ++tensors;
            REQUIRE(v.resolved);
            // Found by a walk of the file's tensors, not by its index.
            const auto named = std::find_if(file.tensors().begin(), file.tensors().end(),
                                            [&](const auto& t) { return t.first == v.tensor; });
            REQUIRE(named != file.tensors().end());
            CHECK(v.resolved == &named->second);
        });
        CHECK(tensors > 0);
    }
}

TEST_CASE("a capture reads the same with its document before the tensors or after them",
          "[capture][side-by-side]") {
    const std::string doc = documentWith(R"([{"kind":"tensor","name":"t0"}])",
                                         R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t3"}]},)"
                                         R"({"debug_handle":[2],"sequence":true,"outputs":[)" +
                                             kList + "]}]");
    const auto first = readAotCapture(captureWith(doc, true));
    const auto last = readAotCapture(captureWith(doc, false));
    REQUIRE(first);
    REQUIRE(last);
    CHECK(aotCaptureDocument(first.value()) == aotCaptureDocument(last.value()));
    for (const auto* c : {&first.value(), &last.value()}) {
        std::vector<std::string> found;
        forEachTensor(*c, [&](const CaptureValue& v) {
            REQUIRE(v.resolved);
            CHECK(v.resolved == c->file->find(v.tensor));
            found.push_back(v.tensor);
        });
        CHECK(found == std::vector<std::string>{"t0", "t3", "t1", "t2"});
    }
}

namespace {

// `count` records, record i with one output naming tensor `nameOf(i)`.
std::string recordsNaming(int count, const std::function<std::string(int)>& nameOf) {
    std::string records = "[";
    for (int i = 0; i < count; ++i)
        records += std::string(i ? "," : "") + R"({"debug_handle":[)" + std::to_string(i + 1) +
                   R"(],"outputs":[{"kind":"tensor","name":")" + nameOf(i) + R"("}]})";
    return records + "]";
}

} // namespace

TEST_CASE("a capture's faults are said in the order the two readers had them in turn",
          "[capture][side-by-side][bogus]") {
    const std::string ok = R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}]}])";
    SECTION("a tensor the file lacks, named at its path, nested in a list too") {
        const auto inInputs = readAotCapture(captureWith(
            documentWith(R"([{"kind":"tensor","name":"t0"},{"kind":"tensor","name":"t7"}])", ok)));
        REQUIRE_FALSE(inInputs);
        CHECK(inInputs.error().where.field == "inputs[1]");
        CHECK_THAT(inInputs.error().message,
                   Catch::Contains("names tensor 't7', which the file does not hold"));
        const std::string nested =
            R"({"kind":"list","items":[{"kind":"tensor","name":"t1"},{"kind":"tensor","name":"gone"}]})";
        const auto inRecord = readAotCapture(captureWith(documentWith(
            "null",
            R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t0"}]},{"debug_handle":[2],"outputs":[)" +
                nested + "]}]")));
        REQUIRE_FALSE(inRecord);
        CHECK(inRecord.error().where.field == "records[1].outputs[0].items[1]");
        CHECK_THAT(inRecord.error().message, Catch::Contains("'gone'"));
        CHECK(inRecord.error().where.file == "side.gscap.safetensors");
    }
    SECTION("of many records, the first in document order that names a tensor the file lacks") {
        // Records are looked up in blocks on every core: the fault must still
        // be the first record's, whichever block fails first. 5,000 records,
        // names missing at 4,321 and 1,234, several blocks apart.
        const auto r = readAotCapture(captureWith(
            documentWith("null", recordsNaming(5000, [](int i) {
                             return i == 1234 ? "lost" : i == 4321 ? "gone" : "t" + std::to_string(i % 4);
                         }))));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "records[1234].outputs[0]");
        CHECK_THAT(r.error().message, Catch::Contains("'lost'"));
    }
    SECTION("of many records that name tensors the file lacks, the first in document order") {
        // Every record from 1,234 on names a tensor the file lacks: every block
        // after the first fails at its first record, before the first block
        // gets to its fault, and the fault is still record 1,234's.
        const auto r = readAotCapture(captureWith(documentWith("null", recordsNaming(9000, [](int i) {
                                                                   return i >= 1234
                                                                              ? "lost" + std::to_string(i)
                                                                              : "t" + std::to_string(i % 4);
                                                               }))));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "records[1234].outputs[0]");
        CHECK_THAT(r.error().message, Catch::Contains("'lost1234'"));
    }
    SECTION("the document's own fault before a tensor it names that the file lacks") {
        const auto r = readAotCapture(captureWith(documentWith(
            "null",
            R"([{"debug_handle":[1],"outputs":[{"kind":"tensor","name":"t9"}]},{"debug_handle":[2],"sequence":1,"outputs":[]}])")));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "records[1].sequence");
    }
    SECTION("a fault of the header after the document, which is bad too: the header's") {
        const auto r = readAotCapture(captureWith(
            documentWith("null", "{}"), true, R"("t9":{"dtype":"C64","shape":[1],"data_offsets":[0,8]})"));
        REQUIRE_FALSE(r);
        CHECK(r.error().where.field == "t9");
        CHECK_THAT(r.error().message, Catch::Contains("unsupported dtype 'C64'"));
    }
    SECTION("a header that is not a capture's, however its tensors read") {
        const auto r = readAotCapture(fileOf(
            R"({"__metadata__":{"other":"x"},"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4));
        REQUIRE_FALSE(r);
        CHECK(r.error().code == ErrorCode::BadMagic);
    }
}
