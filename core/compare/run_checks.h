#pragma once

#include "core/capture/aot_capture.h"
#include "core/etdump/etdump_model.h"
#include "core/etrecord/etrecord_model.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gapscope {

// One ETDump can hold many executions of a method: a model run on several inputs,
// or an LLM's decode loop, whose KV cache lives in mutable buffers and changes
// from one execution to the next. A capture is of one execution, on its inputs
// and from the program's initial state. These are the warnings that say when the
// run compared cannot be that execution (issue 23):
//   - the run asked for holds no debug events (the method-load block);
//   - several executions of the method: which one is compared, that the others
//     ran on other inputs or state, and which run logged the capture's inputs
//     where the dump tells (runsWithInputs);
//   - the run compared did not run on the capture's inputs, which another run
//     logged bit for bit;
//   - a program that mutates buffers compared at an execution after its first;
//   - a capture of one step of a sequence (AotCapture::step) compared with
//     another execution (and nothing else is said of a step capture compared with
//     its own execution: that compares like with like).
//
// `executions`: the runs of the compared method (executionsOf).
std::vector<std::string> runWarnings(const EtDump& dump, const EtRecord* etrecord, const AotCapture& capture,
                                     const std::string& method, std::size_t run, bool runAsked,
                                     const std::vector<std::size_t>& executions);

// The executions whose logged values hold every one of the capture's input tensors
// bit for bit (dtype, shape and bytes). A delegate call logs its inputs, so a model
// whose first delegate reads the program's inputs shows them; a portable program
// logs only op outputs. Inputs of fewer than 4 elements are not looked for (a
// position index matches by chance). Empty: no run shows them, or the capture
// records no such input, and the dump cannot tell.
std::vector<std::size_t> runsWithInputs(const EtDump& dump, const AotCapture& capture,
                                        const std::vector<std::size_t>& executions);

// The runs holding executions of `method`: with debug events and, for a
// multi-method program, fitting the method (`runMethods`, see run_methods.h).
// `valuesSavedApart`: the device's values come from outputs saved beside the
// dump (saved_outputs.h), so a dump logged without a debug buffer, which holds
// no debug event at all, is a dump of executions too: then every run that
// logged anything is one (issue 58: a 1,000-step decode kept as timings).
std::vector<std::size_t> executionsOf(const EtDump& dump, const std::string& method,
                                      const std::vector<std::vector<std::string>>& runMethods,
                                      bool valuesSavedApart = false);
// Whether any run of the dump logged a debug event.
bool anyDebugEvents(const EtDump& dump);

// Which execution of `method` (counted from 0) a comparison looks at: that of
// `run` when asked, else the method's first execution, the run planComparison
// takes by default. None when that run is no execution of the method.
std::optional<std::size_t> executionIndex(const EtDump& dump, const EtRecord* etrecord,
                                          const std::string& method, std::optional<std::size_t> run,
                                          bool valuesSavedApart = false);

// The buffers a method's graph mutates (its signature's buffer mutations), if the
// ETRecord holds its edge program.
std::vector<std::string> mutatedBuffers(const EtRecord& etrecord, const std::string& method);

} // namespace gapscope
