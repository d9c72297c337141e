#include "bench/synthetic_session.h"

#include "core/capture/aot_capture.h"
#include "core/capture/safetensors_writer.h"
#include "core/common/atomic_file.h"
#include "core/etdump/etdump_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace gapscope::bench {

std::optional<Error> writeSyntheticSession(const std::string& out, int ops, int elements,
                                           SyntheticValues values, int runs, bool stepCaptures,
                                           bool profiled) {
    const int side = static_cast<int>(std::sqrt(static_cast<double>(elements)));
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec)
        return makeError(ErrorCode::Io, "cannot create the folder: " + ec.message(), out);
    const char* kinds[] = {"conv2d", "relu", "add", "layer_norm", "linear", "gelu", "matmul", "softmax"};

    std::mt19937 rng(7);
    std::normal_distribution<float> gaussian;
    std::uint64_t state = 7;
    // xorshift64*: a value a nanosecond, where the normal distribution takes twenty.
    const auto next = [&]() -> float {
        if (values == SyntheticValues::Normal)
            return gaussian(rng);
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return static_cast<float>(static_cast<double>((state * 2685821657736338717ull) >> 40) / (1 << 23)) -
               1.0f;
    };
    DebugBufferBuilder sink;
    std::vector<RunData> executions(static_cast<std::size_t>(std::max(runs, 1)));
    for (auto& run : executions)
        run.name = "Execute";
    SafetensorsWriter tensors;
    AotCapture capture;
    capture.producer = {{"gapscope_make_session", "0.1.0"}};
    capture.reference_graph = "synthetic";
    const auto opName = [&](int i) { return std::string(kinds[i % 8]) + "_" + std::to_string(i); };
    // Execution r of op i: the reference plus (r + 1) times the op's noise,
    // appended to the debug buffer as the runtime does, one execution after
    // the other (so a step's rows are neighbours there, as on a device).
    std::vector<float> rt;
    const auto appendRun = [&](std::size_t r, int i, const float* ref, const float* noise) {
        const std::int64_t handle = i + 1;
        rt.resize(static_cast<std::size_t>(side * side));
        for (std::size_t k = 0; k < rt.size(); ++k)
            rt[k] = ref[k] + static_cast<float>(r + 1) * noise[k];
        Tensor t;
        t.scalar_type = static_cast<std::int8_t>(ScalarType::Float);
        t.sizes = {1, side, side};
        t.strides = {side * side, side, 1};
        t.offset = sink.append(rt.data(), rt.size() * sizeof(float));
        Value v;
        v.val = static_cast<std::int8_t>(ValueType::Tensor);
        v.tensors.push_back(t);
        DebugEvent d;
        d.instruction_id = 0;
        d.delegate_debug_id_str = opName(i) + "__debugID_" + std::to_string(handle);
        d.debug_entry = v;
        executions[r].events.push_back(d);
        if (profiled) {
            ProfileEvent p;
            p.name = *d.delegate_debug_id_str + ":OpId_" + std::to_string(i) + " (cycles)";
            p.instruction_id = 0;
            p.delegate_debug_id_str = p.name;
            p.start_time = static_cast<std::uint64_t>(i) * 100;
            p.end_time = p.start_time + 50 + static_cast<std::uint64_t>(i % 7) * 10 + r;
            executions[r].events.push_back(p);
        }
    };
    // Every op's reference and noise, kept when there are several executions
    // to lay out one after the other (a few tens of MB for an LLM step; the
    // one-execution sessions of many GB append as they go).
    const bool severalRuns = executions.size() > 1;
    std::vector<float> refs, noises;
    double drift = 1e-7;
    for (int i = 0; i < ops; ++i) {
        const std::int64_t handle = i + 1;
        const std::string op = opName(i);
        drift *= (i == ops / 3) ? 200.0 : 1.03; // one op introduces a jump
        std::vector<float> ref(static_cast<std::size_t>(side * side)), noise(ref.size());
        for (std::size_t k = 0; k < ref.size(); ++k) {
            ref[k] = next();
            noise[k] = static_cast<float>(drift) * next();
        }
        if (severalRuns) {
            refs.insert(refs.end(), ref.begin(), ref.end());
            noises.insert(noises.end(), noise.begin(), noise.end());
        } else {
            appendRun(0, i, ref.data(), noise.data());
        }

        const std::string name = "records/" + std::to_string(i) + "/0";
        std::vector<std::uint8_t> bytes(ref.size() * sizeof(float));
        std::memcpy(bytes.data(), ref.data(), bytes.size());
        if (auto err = tensors.add(name, ScalarType::Float, {1, side, side}, std::move(bytes)))
            return err;
        CaptureRecord r;
        r.debug_handle = {handle};
        r.ops = {op};
        CaptureValue cv;
        cv.kind = CaptureValue::Kind::Tensor;
        cv.tensor = name;
        r.outputs = {cv};
        capture.records.push_back(r);
    }
    for (std::size_t r = 0; severalRuns && r < executions.size(); ++r)
        for (int i = 0; i < ops; ++i) {
            const auto at = static_cast<std::size_t>(i) * static_cast<std::size_t>(side * side);
            appendRun(r, i, refs.data() + at, noises.data() + at);
        }
    for (std::size_t r = 0; profiled && r < executions.size(); ++r) {
        const auto end = static_cast<std::uint64_t>(ops) * 100 + 1000 + r;
        for (const char* name : {"DELEGATE_CALL", "Method::execute"}) {
            ProfileEvent p;
            p.name = name;
            p.instruction_id = 0;
            p.start_time = 0;
            p.end_time = end;
            executions[r].events.push_back(p);
        }
    }
    EtDump dump;
    dump.runs = std::move(executions);
    const auto etdump = writeEtdump(dump);
    if (auto err = writeFileAtomically(out + "/run.etdp", {etdump.data(), etdump.size()}))
        return err;
    if (auto err = writeFileAtomically(out + "/run.debug.bin", {sink.bytes().data(), sink.bytes().size()}))
        return err;
    if (!stepCaptures)
        return writeAotCapture(out + "/capture.gscap.safetensors", capture, tensors);
    for (int k = 0; k < runs; ++k) {
        char name[64];
        std::snprintf(name, sizeof name, "/capture.step-%03d.gscap.safetensors", k);
        capture.step = static_cast<std::uint64_t>(k);
        if (auto err = writeAotCapture(out + name, capture, tensors))
            return err;
    }
    return std::nullopt;
}

} // namespace gapscope::bench
