#pragma once

namespace gapscope {

// What a session's input file is for: one vocabulary for the session's
// missing inputs, the reports' provenance and the saved session's keys
// (issue 57: three, two of them strings, before).
enum class InputRole { EtDump, DebugBuffer, EtRecord, Capture };

// "etdump", "debug_buffer", "etrecord", "capture": what reports and saved sessions write.
const char* inputRoleKey(InputRole role);
// "ETDump", "debug buffer", "ETRecord", "AOT capture": what messages say ("… missing").
const char* inputRoleLabel(InputRole role);

} // namespace gapscope
