#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gapscope {

// A field's path in a document ("records[3].outputs[0]",
// "debug_event.debug_entry.tensor.sizes[2]"), rendered only when a fault or a
// warning names it: a string built for every value was a fifth of reading a
// 50,000-record capture document, and two per debug event of an ETDump. A link
// to its parent, so each must outlive the paths below it; the views it holds
// (a root, a member) must outlive it.
class FieldPath {
public:
    FieldPath(std::string_view root) : m_text(root) {}
    FieldPath(const char* root) : m_text(root) {}
    FieldPath(const std::string& root) : m_text(root) {}
    // `parent` + "." + member, or `parent` + "[" + index + "]".
    FieldPath(const FieldPath& parent, std::string_view member) : m_parent(&parent), m_text(member) {}
    FieldPath(const FieldPath& parent, std::size_t index)
        : m_parent(&parent), m_index(index), m_indexed(true) {}
    std::string str() const;

private:
    const FieldPath* m_parent = nullptr;
    std::string_view m_text; // the root, or the member
    std::size_t m_index = 0;
    bool m_indexed = false;
};

} // namespace gapscope
