#pragma once

#include <atomic>
#include <cstddef>

namespace gapscope {

// Inputs are memory-mapped; a file truncated while mapped (a new device run
// writing over it) raises SIGBUS on the first read of a page past its new end,
// which would kill the app. A guarded mapping instead gets a page of zeros at
// the faulting address and its `changed` flag is set: readers go on, and the
// owner (MappedFile::changedOnDisk) reports the file as changed, so that the
// numbers are not trusted and a reload is offered.
//
// Returns a slot for unguardMapping, or −1 when every slot is taken (the
// mapping then stays unguarded). Installs the SIGBUS handler on first use; a
// fault outside every guarded mapping goes to the handler before it.
int guardMapping(const void* begin, std::size_t size, std::atomic<bool>* changed);
void unguardMapping(int slot);

} // namespace gapscope
