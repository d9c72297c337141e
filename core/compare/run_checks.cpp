#include "core/compare/run_checks.h"

#include "core/align/run_methods.h"

#include <algorithm>
#include <cstring>

namespace gapscope {

namespace {

bool hasDebugEvents(const RunData& run) {
    return std::any_of(run.events.begin(), run.events.end(),
                       [](const Event& e) { return std::holds_alternative<DebugEvent>(e); });
}

// "runs 1, 2, 3, … 17" (at most eight named).
std::string runList(const std::vector<std::size_t>& runs) {
    std::string out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (i == 6 && runs.size() > 8) {
            out += ", … " + std::to_string(runs.back());
            break;
        }
        out += (i ? ", " : "") + std::to_string(runs[i]);
    }
    return out;
}

} // namespace

bool anyDebugEvents(const EtDump& dump) {
    return std::any_of(dump.runs.begin(), dump.runs.end(), hasDebugEvents);
}

std::vector<std::size_t> executionsOf(const EtDump& dump, const std::string& method,
                                      const std::vector<std::vector<std::string>>& runMethods,
                                      bool valuesSavedApart) {
    std::vector<std::size_t> out;
    const bool timingsOnly = valuesSavedApart && !anyDebugEvents(dump);
    // ExecuTorch names an execution's run "Execute" (the method's load is
    // "Default"); a dump whose runs have no such name counts each run that logged.
    const bool named = std::any_of(dump.runs.begin(), dump.runs.end(),
                                   [](const RunData& run) { return run.name && *run.name == "Execute"; });
    const auto timed = [&](const RunData& run) {
        return named ? run.name && *run.name == "Execute" : !run.events.empty();
    };
    for (std::size_t r = 0; r < dump.runs.size(); ++r) {
        if (timingsOnly ? !timed(dump.runs[r]) : !hasDebugEvents(dump.runs[r]))
            continue;
        if (!runMethods.empty()) {
            const auto& fits = r < runMethods.size() ? runMethods[r] : std::vector<std::string>{};
            if (std::find(fits.begin(), fits.end(), method) == fits.end())
                continue;
        }
        out.push_back(r);
    }
    return out;
}

std::optional<std::size_t> executionIndex(const EtDump& dump, const EtRecord* etrecord,
                                          const std::string& method, std::optional<std::size_t> run,
                                          bool valuesSavedApart) {
    const auto runMethods = etrecord && isMultiMethod(*etrecord) ? methodsFittingRuns(dump, *etrecord)
                                                                 : std::vector<std::vector<std::string>>{};
    const auto executions = executionsOf(dump, method, runMethods, valuesSavedApart);
    if (executions.empty())
        return std::nullopt;
    const auto at = std::find(executions.begin(), executions.end(), run.value_or(executions.front()));
    if (at == executions.end())
        return std::nullopt;
    return static_cast<std::size_t>(at - executions.begin());
}

std::vector<std::string> mutatedBuffers(const EtRecord& etrecord, const std::string& method) {
    const ExportGraph* edge = etrecord.edgeProgram(method);
    return edge ? edge->mutated_buffers : std::vector<std::string>{};
}

std::vector<std::size_t> runsWithInputs(const EtDump& dump, const AotCapture& capture,
                                        const std::vector<std::size_t>& executions) {
    std::vector<const SafetensorsTensor*> inputs;
    if (capture.inputs && capture.file)
        for (const auto& v : *capture.inputs)
            if (const auto* t = v.kind == CaptureValue::Kind::Tensor ? capture.tensor(v) : nullptr;
                t && t->numel >= 4)
                inputs.push_back(t);
    std::vector<std::size_t> out;
    if (inputs.empty() || !dump.debug_buffer)
        return out;
    const ByteSpan buffer = dump.debug_buffer->bytes();
    const auto logs = [&](const RunData& run, const SafetensorsTensor& input) {
        const ByteSpan want = capture.file->bytes(input);
        for (const auto& e : run.events) {
            const auto* d = std::get_if<DebugEvent>(&e);
            if (!d || !d->debug_entry)
                continue;
            for (const auto& t : d->debug_entry->tensors) {
                if (t.data != TensorData::Present ||
                    t.scalar_type != static_cast<std::int8_t>(input.scalar_type) || t.sizes != input.shape ||
                    !t.nbytes || *t.nbytes != want.size || t.offset < 0 ||
                    static_cast<std::uint64_t>(t.offset) + *t.nbytes > buffer.size)
                    continue;
                if (std::memcmp(buffer.data + t.offset, want.data, want.size) == 0)
                    return true;
            }
        }
        return false;
    };
    for (auto r : executions)
        if (std::all_of(inputs.begin(), inputs.end(),
                        [&](const SafetensorsTensor* t) { return logs(dump.runs[r], *t); }))
            out.push_back(r);
    return out;
}

std::vector<std::string> runWarnings(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                     const std::string& method, std::size_t run, bool runAsked,
                                     const std::vector<std::size_t>& executions) {
    std::vector<std::string> out;
    const std::string of = "'" + (method.empty() ? std::string("forward") : method) + "'";
    // An execution of a dump of timings only, its values saved apart, is one (executionsOf).
    const bool anExecution = std::find(executions.begin(), executions.end(), run) != executions.end();
    if (run < dump.runs.size() && runAsked && !hasDebugEvents(dump.runs[run]) && !anExecution) {
        out.push_back(
            "run " + std::to_string(run) +
            " holds no debug events (a block such as the method load, not an execution): nothing is "
            "compared" +
            (executions.empty() ? std::string()
                                : "; the executions of " + of + " are runs " + runList(executions)));
        return out;
    }
    const auto at = std::find(executions.begin(), executions.end(), run);
    // A capture of one step of a sequence (state carried): like with like when the
    // run is that execution, else said.
    if (capture.step && at != executions.end()) {
        const auto execution = static_cast<std::uint64_t>(at - executions.begin());
        if (execution != *capture.step)
            out.push_back(
                "the capture is of step " + std::to_string(*capture.step) + " of a sequence but run " +
                std::to_string(run) + " is execution " + std::to_string(execution) + " of " + of +
                " (counted from 0): give the step captures together (their folder) or the capture of "
                "step " +
                std::to_string(execution));
        return out;
    }
    // One execution either logged the inputs or cannot tell: only several need looking.
    const auto holding = at != executions.end() && executions.size() > 1
                             ? runsWithInputs(dump, capture, executions)
                             : std::vector<std::size_t>{};
    const bool ranOnThem = std::find(holding.begin(), holding.end(), run) != holding.end();
    if (executions.size() > 1 && at != executions.end())
        out.push_back("the ETDump holds " + std::to_string(executions.size()) + " executions of " + of +
                      " (runs " + runList(executions) + "); run " + std::to_string(run) +
                      " is compared. The capture is of one execution, on its inputs and from the program's "
                      "initial state: the other runs ran on other inputs or state. " +
                      (holding.empty()
                           ? std::string("Which run's inputs the capture holds cannot be told from "
                                         "the dump (it does not log them)")
                           : "The capture's inputs are logged, bit for bit, by run" +
                                 std::string(holding.size() > 1 ? "s " : " ") + runList(holding)) +
                      ". Compare another run (--run, or the app's Run selector) against a capture of its own "
                      "inputs");
    if (!holding.empty() && !ranOnThem)
        out.push_back("run " + std::to_string(run) +
                      " did not run on the capture's inputs: they are logged, bit for bit, by run" +
                      (holding.size() > 1 ? "s " : " ") + runList(holding) +
                      " and not by this one, so every row compares other inputs' results. Compare run " +
                      std::to_string(holding.front()) + ", or capture this run's inputs");
    if (etrecord && at != executions.end() && at != executions.begin()) {
        const auto buffers = mutatedBuffers(*etrecord, method.empty() ? "forward" : method);
        if (!buffers.empty()) {
            std::string names;
            for (std::size_t i = 0; i < buffers.size() && i < 4; ++i)
                names += (i ? ", '" : "'") + buffers[i] + "'";
            if (buffers.size() > 4)
                names += ", …";
            out.push_back(
                of + " mutates buffers (" + names + ", a KV cache or a counter): run " + std::to_string(run) +
                " is execution " + std::to_string(static_cast<std::size_t>(at - executions.begin())) +
                " (counted from 0) of " + std::to_string(executions.size()) +
                ", whose state the earlier executions changed, while the capture starts from the "
                "initial state: from the first op that reads that state on, rows do not compare like "
                "with like");
        }
    }
    return out;
}

} // namespace gapscope
