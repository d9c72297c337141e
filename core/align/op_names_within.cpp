#include "core/align/op_names_within.h"

namespace gapscope {

namespace {

std::vector<const std::vector<std::int64_t>*> keysOf(const OpNamesWithin::RuntimeName* names,
                                                     std::size_t count) {
    std::vector<const std::vector<std::int64_t>*> keys;
    keys.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        keys.push_back(names[i].handles);
    return keys;
}

} // namespace

OpNamesWithin::OpNamesWithin(const std::vector<RuntimeName>& runtimeNames, const AotCapture& capture)
    : OpNamesWithin(runtimeNames.data(), runtimeNames.size(), capture) {}

OpNamesWithin::OpNamesWithin(const RuntimeName* runtimeNames, std::size_t count, const AotCapture& capture)
    : m_runtimeNames(runtimeNames), m_capture(&capture), m_runtime(keysOf(runtimeNames, count)),
      m_aot(capture.debugHandles()) {}

// Rows are planned on every core: each thread finds into its own list.
std::vector<std::string> OpNamesWithin::runtime(const std::vector<std::int64_t>& target) const {
    thread_local std::vector<std::size_t> found;
    m_runtime.subsetsOf(target, found);
    std::vector<std::string> out;
    out.reserve(found.size());
    for (auto i : found)
        out.push_back(*m_runtimeNames[i].name);
    return out;
}

std::vector<std::string> OpNamesWithin::aot(const std::vector<std::int64_t>& target) const {
    thread_local std::vector<std::size_t> found;
    m_aot.subsetsOf(target, found);
    std::size_t count = 0;
    for (auto i : found)
        count += m_capture->records[i].ops.size();
    std::vector<std::string> out;
    out.reserve(count);
    for (auto i : found)
        out.insert(out.end(), m_capture->records[i].ops.begin(), m_capture->records[i].ops.end());
    return out;
}

} // namespace gapscope
