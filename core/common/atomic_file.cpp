#include "core/common/atomic_file.h"

#include "core/common/atomic_file_writer.h"

namespace gapscope {

std::optional<Error> writeFileAtomically(const std::string& path, ByteSpan bytes) {
    AtomicFileWriter writer(path);
    writer.write(std::string_view(reinterpret_cast<const char*>(bytes.data), bytes.size));
    return writer.commit();
}

std::optional<Error> writeFileAtomically(const std::string& path, std::string_view text) {
    return writeFileAtomically(path,
                               ByteSpan{reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

} // namespace gapscope
