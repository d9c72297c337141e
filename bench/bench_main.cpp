// Speed of the two hot paths, as ratios measured in one run:
//  1. ETDump reading: a generated 200k-event dump with tensors, parse time against
//     a plain copy of the same bytes and against FlatBuffers verification alone.
//  2. Gap metrics on a 16M-element float32 pair: all threads against one thread,
//     and both against a single pass that only sums the difference.
//  3. A staged load of a synthetic session, as the app does it: time until the
//     table can be shown against time until every metric and finding is in.

#include "bench/bench_timing.h"
#include "bench/gap_bench.h"
#include "bench/synthetic_session.h"
#include "core/align/alignment.h"
#include "core/common/allocator_tuning.h"
#include "core/common/parallel.h"
#include "core/compare/findings.h"
#include "core/etdump/etdump_reader.h"
#include "core/etdump/etdump_verify.h"
#include "core/etdump/etdump_writer.h"
#include "core/metrics/gap_metrics.h"
#include "core/session/session.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <simdjson.h>
#include <string_view>
#include <vector>
#include <zip.h>

using namespace gapscope;
using gapscope::bench::bestOf;
using gapscope::bench::Clock;
using gapscope::bench::median;
using gapscope::bench::processCpuSeconds;
using gapscope::bench::quartiles;
using gapscope::bench::seconds;

namespace {

void benchReader(std::string& json) {
    EtDump dump;
    DebugBufferBuilder sink;
    RunData run;
    run.name = "Execute";
    std::vector<float> values(256, 1.5f);
    for (int i = 0; i < 100000; ++i) {
        Tensor t;
        t.scalar_type = 6;
        t.sizes = {1, 256};
        t.strides = {256, 1};
        t.offset = sink.append(values.data(), values.size() * sizeof(float));
        Value v;
        v.val = static_cast<std::int8_t>(ValueType::Tensor);
        v.tensors.push_back(t);
        DebugEvent d;
        d.instruction_id = i;
        d.debug_entry = v;
        run.events.push_back(d);
        ProfileEvent p;
        p.name = "native_call_add.out";
        p.instruction_id = i;
        p.start_time = static_cast<std::uint64_t>(i);
        p.end_time = static_cast<std::uint64_t>(i + 1);
        run.events.push_back(p);
    }
    dump.runs.push_back(run);
    const auto bytes = writeEtdump(dump);
    const auto buffer = MappedFile::fromBytes("bench.debug.bin", sink.bytes().data(), sink.bytes().size());
    EtdumpReadOptions options;
    options.debug_buffer = buffer;

    std::vector<std::uint8_t> copy(bytes.size());
    const double tCopy = bestOf(5, [&] { std::memcpy(copy.data(), bytes.data(), bytes.size()); });
    std::size_t events = 0;
    const double tParse = bestOf(5, [&] {
        auto r = parseEtdump({bytes.data(), bytes.size()}, options);
        events = r ? r.value().runs[0].events.size() : 0;
    });
    std::printf("etdump: %zu events, %.1f MB; parse %.1f ms = %.0f events/ms; parse/memcpy = %.0fx\n", events,
                static_cast<double>(bytes.size()) / 1e6, tParse * 1e3,
                static_cast<double>(events) / (tParse * 1e3), tParse / tCopy);
    json += ",\"etdump_events_per_ms\":" + std::to_string(static_cast<double>(events) / (tParse * 1e3)) +
            ",\"etdump_parse_over_memcpy\":" + std::to_string(tParse / tCopy);
}

// One read of a file into memory, as a program reading it whole would (one
// read of its size, from the page cache).
void readWhole(const std::filesystem::path& path, std::vector<char>& bytes) {
    std::ifstream in(path, std::ios::binary);
    bytes.resize(static_cast<std::size_t>(std::filesystem::file_size(path)));
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void benchStagedLoad(std::string& json) {
    const auto dir = std::filesystem::temp_directory_path() / "gapscope-bench-session";
    const int ops = 400, elements = 65536;
    if (auto err = bench::writeSyntheticSession(dir.string(), ops, elements)) {
        std::printf("staged load: %s\n", err->describe().c_str());
        return;
    }
    double table = 0, firstRows = 0, complete = 0;
    std::size_t rows = 0;
    const double oneShot = bestOf(3, [&] {
        std::vector<Error> errors;
        rows = loadSession(sessionInputsFromPaths({dir.string()}, errors))->comparison->rows.size();
    });
    bestOf(3, [&] {
        const auto t0 = Clock::now();
        std::vector<Error> errors;
        auto staged = openSession(sessionInputsFromPaths({dir.string()}, errors));
        const auto t1 = Clock::now();
        Session& s = *staged.session;
        // The app's first batch (as many rows as threads), then the rest.
        const auto& pending = staged.pending;
        const std::size_t split = std::min<std::size_t>(defaultThreadCount(), pending.size());
        for (const auto& m : measureRows(pending.data(), split))
            applyMeasurement(*s.comparison, m);
        const auto t2 = Clock::now();
        for (const auto& m : measureRows(pending.data() + split, pending.size() - split))
            applyMeasurement(*s.comparison, m);
        completeSession(s, compareProgramOutputs(*s.dump, *s.capture, *s.comparison));
        const auto t3 = Clock::now();
        table = std::chrono::duration<double>(t1 - t0).count();
        firstRows = std::chrono::duration<double>(t2 - t0).count();
        complete = std::chrono::duration<double>(t3 - t0).count();
    });
    // Open, resolve and align (the table), against one read of the ETDump file.
    std::vector<char> bytes;
    const double read = bestOf(3, [&] { readWhole(dir / "run.etdp", bytes); });
    json += ",\"open_ratio_400_ops\":" + std::to_string(table / read) +
            ",\"open_ms_400_ops\":" + std::to_string(table * 1e3);
    std::filesystem::remove_all(dir);
    std::printf(
        "staged load: %zu ops x %d float32; table after %.1f ms, first rows %.1f ms, complete %.0f ms "
        "(one-shot %.0f ms): table/complete = %.3f, staged/one-shot = %.2f\n",
        rows, elements, table * 1e3, firstRows * 1e3, complete * 1e3, oneShot * 1e3, table / complete,
        complete / oneShot);
}

// Each row's time (issue 26) on a 50,000-op session that logged QNN's per-op
// cycles in 3 runs: the timing table and the rows' times, computed when a load
// completes, against opening the same session (the table), side by side.
void benchLatency(std::string& json) {
    const auto dir = std::filesystem::temp_directory_path() / "gapscope-bench-latency";
    const int ops = 50000;
    if (auto err = bench::writeSyntheticSession(dir.string(), ops, 16, bench::SyntheticValues::Fast, 3, false,
                                                true)) {
        std::printf("latency: %s\n", err->describe().c_str());
        return;
    }
    std::unique_ptr<Session> session;
    const double open = bestOf(3, [&] {
        std::vector<Error> errors;
        session = std::move(openSession(sessionInputsFromPaths({dir.string()}, errors)).session);
    });
    std::size_t timed = 0;
    const double latency = bestOf(3, [&] {
        const auto l = comparisonLatency(profileTable(*session->dump), *session->comparison);
        timed = l ? l->rows.size() - l->rowsWithoutTime() : 0;
    });
    std::printf(
        "latency: %zu rows, %zu timed from QNN's cycles over 3 runs: %.1f ms, opening %.1f ms (%.2fx)\n",
        session->comparison->rows.size(), timed, latency * 1e3, open * 1e3, latency / open);
    json += ",\"latency_ms_50k\":" + std::to_string(latency * 1e3) +
            ",\"latency_over_open_50k\":" + std::to_string(latency / open) +
            ",\"latency_rows_timed_50k\":" + std::to_string(timed);
    session.reset();
    std::filesystem::remove_all(dir);
}

// The floor under opening a session, for any reader that checks its input
// (issue 29): the FlatBuffers verifier over the ETDump; simdjson parsing the
// capture's safetensors header and then its metadata document; libzip reading
// the ETRecord's entries and simdjson parsing its graph JSON (when the session
// has an ETRecord). Each part in seconds, from the page cache.
struct ParseFloor {
    double verify = 0, capture_header = 0, capture_document = 0, etrecord = 0;
    double total() const { return verify + capture_header + capture_document + etrecord; }
};

ParseFloor parseFloor(const std::filesystem::path& dir) {
    ParseFloor f;
    std::vector<char> bytes;
    readWhole(dir / "run.etdp", bytes);
    auto t0 = Clock::now();
    Location where;
    std::string what;
    if (!verifyEtdumpFlatbuffer({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()}, true,
                                where, what))
        std::printf("floor: the ETDump does not verify: %s\n", what.c_str());
    f.verify = seconds(t0);

    readWhole(dir / "capture.gscap.safetensors", bytes);
    simdjson::dom::parser parser;
    t0 = Clock::now();
    std::uint64_t size = 0;
    std::memcpy(&size, bytes.data(), 8);
    const simdjson::padded_string header(bytes.data() + 8, static_cast<std::size_t>(size));
    std::string_view document;
    if (parser.parse(header)["__metadata__"]["gapscope.aot_capture"].get(document))
        std::printf("floor: no capture document\n");
    f.capture_header = seconds(t0);
    t0 = Clock::now();
    const simdjson::padded_string doc(document);
    simdjson::dom::element records;
    if (parser.parse(doc)["records"].get(records))
        std::printf("floor: the capture document has no records\n");
    f.capture_document = seconds(t0);

    const auto etrecord = dir / "etrecord.bin";
    if (std::filesystem::exists(etrecord)) {
        t0 = Clock::now();
        int err = 0;
        zip_t* zip = zip_open(etrecord.c_str(), ZIP_RDONLY, &err);
        for (zip_int64_t i = 0; zip && i < zip_get_num_entries(zip, 0); ++i) {
            zip_stat_t st;
            if (zip_stat_index(zip, static_cast<zip_uint64_t>(i), 0, &st) != 0)
                continue;
            std::string entry(static_cast<std::size_t>(st.size), '\0');
            zip_file_t* file = zip_fopen_index(zip, static_cast<zip_uint64_t>(i), 0);
            if (file) {
                (void)zip_fread(file, entry.data(), st.size);
                zip_fclose(file);
            }
            const std::string_view name(st.name);
            const auto endsWith = [&](std::string_view tail) {
                return name.size() >= tail.size() && name.substr(name.size() - tail.size()) == tail;
            };
            if (name.rfind("edge_dialect_exported_program/", 0) == 0 && !endsWith("_state_dict") &&
                !endsWith("_constants") && !endsWith("_example_inputs")) { // the graph itself
                simdjson::dom::element graph;
                if (parser.parse(simdjson::padded_string(entry)).get(graph) != simdjson::SUCCESS)
                    std::printf("floor: %s is not JSON\n", st.name);
            }
        }
        if (zip)
            zip_close(zip);
        f.etrecord = seconds(t0);
    }
    return f;
}

// Opening a session whose ETDump is large (50,000 ops, one event each, tiny
// tensors): open, resolve, align and plan (the table), against the parse floor
// (ParseFloor) and against one read of the ETDump, interleaved: five rounds of
// each, medians. With `profile` > 0 (--open-repeat N), the session is opened
// that many times and nothing else is measured: a profile of the process after
// the writing is a profile of opening.
void benchOpenRatio(std::string& json, int profile = 0) {
    const auto dir = std::filesystem::temp_directory_path() / "gapscope-bench-open";
    const int ops = 50000;
    if (auto err = bench::writeSyntheticSession(dir.string(), ops, 16, bench::SyntheticValues::Fast)) {
        std::printf("open: %s\n", err->describe().c_str());
        return;
    }
    std::vector<double> opens, cpus;
    for (int i = 0; i < profile; ++i) {
        const double cpu0 = processCpuSeconds();
        const auto t0 = Clock::now();
        {
            std::vector<Error> errors;
            auto staged = openSession(sessionInputsFromPaths({dir.string()}, errors));
            opens.push_back(seconds(t0));
            cpus.push_back(processCpuSeconds() - cpu0);
        }
    }
    if (profile > 0) {
        // The CPU on every core while the table is made, beside the wall clock:
        // what an opening costs, not only how long it waits (on this 2-core VM
        // both move by some 10% from one run to the next).
        std::printf("open x%d: median %.1f ms, CPU %.1f ms\n", profile, median(opens) * 1e3,
                    median(cpus) * 1e3);
        std::filesystem::remove_all(dir);
        return;
    }
    std::size_t rows = 0;
    std::vector<double> reads, floors, verifies, headers, documents, etrecords;
    std::vector<char> bytes;
    // Eleven rounds: on this 2-core VM one opening's time moves by 10 to 30%
    // from round to round (the first, cold, most), and five rounds' median
    // moved by as much.
    for (int round = 0; round < 11; ++round) {
        auto t0 = Clock::now();
        {
            std::vector<Error> errors;
            auto staged = openSession(sessionInputsFromPaths({dir.string()}, errors));
            rows = staged.session->comparison->rows.size();
            opens.push_back(seconds(t0)); // the table is there; freeing it is not opening
        }
        t0 = Clock::now();
        readWhole(dir / "run.etdp", bytes);
        reads.push_back(seconds(t0));
        const ParseFloor f = parseFloor(dir);
        floors.push_back(f.total());
        verifies.push_back(f.verify);
        headers.push_back(f.capture_header);
        documents.push_back(f.capture_document);
        etrecords.push_back(f.etrecord);
    }
    const double open = median(opens), read = median(reads), floor = median(floors);
    const auto spread = quartiles(opens);
    std::printf(
        "open: %zu rows, ETDump %.1f MB: open %.1f ms (quartiles %.1f-%.1f), read %.2f ms (ratio %.1f); the "
        "parse floor %.1f ms (verifier %.1f, capture header %.1f, capture document %.1f, ETRecord %.1f%s): "
        "open/floor %.2f\n",
        rows, static_cast<double>(bytes.size()) / 1e6, open * 1e3, spread[0] * 1e3, spread[2] * 1e3,
        read * 1e3, open / read, floor * 1e3, median(verifies) * 1e3, median(headers) * 1e3,
        median(documents) * 1e3, median(etrecords) * 1e3,
        std::filesystem::exists(dir / "etrecord.bin") ? "" : ": none in this session", open / floor);
    json += ",\"open_over_parse\":" + std::to_string(open / floor) +
            ",\"open_ms\":" + std::to_string(open * 1e3) +
            ",\"open_ms_q1\":" + std::to_string(spread[0] * 1e3) +
            ",\"open_ms_q3\":" + std::to_string(spread[2] * 1e3) +
            ",\"parse_floor_ms\":" + std::to_string(floor * 1e3) +
            ",\"parse_floor_verify_ms\":" + std::to_string(median(verifies) * 1e3) +
            ",\"parse_floor_capture_header_ms\":" + std::to_string(median(headers) * 1e3) +
            ",\"parse_floor_capture_document_ms\":" + std::to_string(median(documents) * 1e3) +
            ",\"parse_floor_etrecord_ms\":" + std::to_string(median(etrecords) * 1e3) +
            ",\"open_ratio\":" + std::to_string(open / read) +
            ",\"open_etdump_mb\":" + std::to_string(static_cast<double>(bytes.size()) / 1e6) +
            ",\"verify_over_read\":" + std::to_string(median(verifies) / read);
    std::filesystem::remove_all(dir);
}

// Alignment and findings at LLM scale: an ETRecord graph of 50,000 nodes (a
// chain with skip connections) and 200,000 runtime events (per op: two events
// of one key, the later instruction winning, an OPERATOR_CALL and a framework
// event). In memory, so the file readers do not count.
void benchAlignAndFindings(std::string& json) {
    constexpr std::size_t kNodes = 50000;
    ExportGraph graph;
    AotCapture capture;
    Tensor tensor;
    tensor.sizes = {1, 4};
    tensor.data = TensorData::Present;
    RuntimeValue value;
    value.kind = RuntimeValue::Kind::Tensor;
    value.tensor = &tensor;
    std::vector<InspectorEvent> events;
    events.reserve(4 * kNodes);
    for (std::size_t i = 0; i < kNodes; ++i) {
        const auto handle = static_cast<std::int64_t>(i + 1);
        GraphNode node;
        node.name = "op_" + std::to_string(i);
        node.debug_handles = {handle};
        if (i > 0)
            node.input_tensors.push_back("t_" + std::to_string(i - 1));
        if (i > 5 && i % 7 == 0)
            node.input_tensors.push_back("t_" + std::to_string(i - 5));
        node.output_tensors.push_back("t_" + std::to_string(i));
        graph.nodes.push_back(node);
        CaptureRecord record;
        record.debug_handle = {handle};
        record.ops = {node.name};
        capture.records.push_back(record);
        for (int k = 0; k < 4; ++k) {
            InspectorEvent e;
            e.instruction_id = static_cast<std::int32_t>(2 * i + (k == 1 ? 1 : 0));
            e.name = k == 2 ? "OPERATOR_CALL" : k == 3 ? "Method::execute" : "native_call_" + node.name;
            e.has_op_types = k < 2;
            if (k < 2) {
                e.resolved.handles = {handle};
                e.debug_data = {value};
            }
            events.push_back(std::move(e));
        }
    }
    Alignment alignment;
    const double align = bestOf(3, [&] { alignment = alignRuntimeWithCapture(events, capture, &graph); });
    Comparison c;
    for (const auto& pair : alignment.pairs) {
        ComparisonRow row;
        row.index = c.rows.size();
        RowIdentity id;
        id.aot_debug_handle = pair.handles;
        id.aot_ops = pair.aot.record->ops;
        row.identity = std::make_shared<const RowIdentity>(std::move(id));
        row.instruction_id = pair.runtime->instruction_id;
        GapMetrics m;
        m.elements = 4;
        m.mse = m.l1 = 1e-6 * static_cast<double>(row.index % 97 + 1);
        m.rel_l2 = 1e-4 * static_cast<double>(row.index % 89 + 1);
        m.snr = -20.0 * std::log10(m.rel_l2);
        row.gaps = {m};
        c.rows.push_back(std::move(row));
    }
    std::size_t introducers = 0;
    const double findings = bestOf(3, [&] {
        introducers = errorIntroducers(c, &graph).size();
        (void)firstDivergence(c, {Metric::Snr, 20.0});
    });
    // Its two parts, for the profile: the producer walk and the first divergence.
    const double walk = bestOf(3, [&] { introducers = errorIntroducers(c, &graph).size(); });
    const double divergence = bestOf(3, [&] { (void)firstDivergence(c, {Metric::Snr, 20.0}); });
    std::printf("align: %zu nodes, %zu events -> %zu rows in %.0f ms; findings (%zu introducers) in %.0f ms "
                "(introducers %.0f ms, first divergence %.0f ms)\n",
                kNodes, events.size(), alignment.pairs.size(), align * 1e3, introducers, findings * 1e3,
                walk * 1e3, divergence * 1e3);
    json += ",\"align_ms_50k\":" + std::to_string(align * 1e3) +
            ",\"findings_ms_50k\":" + std::to_string(findings * 1e3) +
            ",\"align_rows_50k\":" + std::to_string(alignment.pairs.size());
}

} // namespace

int main(int argc, char** argv) {
    tuneAllocator(); // as the app and the CLI do: what is measured is what runs
    std::string json = "{\"benchmark\":\"gapscope_bench\"";
    if (argc > 1 && std::string_view(argv[1]) == "--open") { // this alone, for a profiler
        benchOpenRatio(json);
        std::printf("%s}\n", json.c_str());
        return 0;
    }
    if (argc > 2 && std::string_view(argv[1]) == "--open-repeat") { // opening alone, N times, for a profiler
        benchOpenRatio(json, std::max(1, std::atoi(argv[2])));
        return 0;
    }
    if (argc > 1 && std::string_view(argv[1]) == "--align") { // alignment and findings at LLM scale alone
        benchAlignAndFindings(json);
        std::printf("%s}\n", json.c_str());
        return 0;
    }
    if (argc > 1 && std::string_view(argv[1]) == "--metrics") {
        bench::benchGap(json);
        std::printf("%s}\n", json.c_str());
        return 0;
    }
    benchReader(json);
    bench::benchGap(json);
    benchStagedLoad(json);
    benchOpenRatio(json);
    benchLatency(json);
    benchAlignAndFindings(json);
    // One JSON object, last (docs/performance.md).
    std::printf("%s}\n", json.c_str());
    return 0;
}
