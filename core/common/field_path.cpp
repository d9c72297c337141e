#include "core/common/field_path.h"

namespace gapscope {

std::string FieldPath::str() const {
    std::string out = m_parent ? m_parent->str() : std::string();
    if (m_indexed)
        out += "[" + std::to_string(m_index) + "]";
    else if (m_parent)
        out.append(".").append(m_text);
    else
        out.append(m_text);
    return out;
}

} // namespace gapscope
