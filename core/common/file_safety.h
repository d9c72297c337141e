#pragma once

#include "core/common/diagnostics.h"

#include <optional>
#include <string>

struct stat;

namespace gapscope {

// What a non-regular file is, for messages: "a FIFO (named pipe)", "a
// character device", "a directory", ...
std::string describeFileType(const struct stat& st);

// Refuses, without opening it, a path that is not a regular file: opening a
// FIFO blocks until a writer comes, and opening a device can act on it (a
// watchdog, a tape). Follows symbolic links (an input may be one).
std::optional<Error> refuseNonRegularInput(const std::string& path);

// Remembers a file used as an input (device and inode), so that no output is
// ever written over it, whatever name or hard link the output names
// (MappedFile::protectFromOutputs; files only looked at are not protected).
// `path` names it now: its birth time is kept too, so that a file created later
// on the inode of a deleted input (file systems reuse inode numbers) is not
// taken for that input.
void registerInput(unsigned long long device, unsigned long long inode, const std::string& path);

// Refuses an output path that exists and is not a regular file (a device node,
// a FIFO, a directory, a symbolic link, which rename() would replace by a
// regular file), or that is a file this process opened as an input.
std::optional<Error> refuseUnsafeOutput(const std::string& path);

// Refuses an output folder (a report folder, Model Explorer's overlays) that
// exists and is not a folder, or is a symbolic link (to a folder or not): files
// written into it would land wherever the link points, outside the path the user
// chose (issue 55, class 7; the entries inside are checked by refuseUnsafeOutput
// as each is written). Nothing there yet is fine: it will be made.
std::optional<Error> refuseUnsafeOutputFolder(const std::string& path);

} // namespace gapscope
