#include "core/common/page_releaser.h"

#include <algorithm>
#include <tuple>

namespace gapscope {

PageReleaser::~PageReleaser() {
    flush();
}

PageReleaser::PageReleaser(std::size_t flushAt) : m_flushAt(flushAt) {}

void PageReleaser::add(const MappedFile& file, ByteSpan bytes) {
    if (!bytes.data || bytes.size == 0)
        return;
    const auto from = reinterpret_cast<std::uintptr_t>(bytes.data);
    std::vector<Held> full;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_held.push_back({&file, from, from + bytes.size});
        m_bytes += bytes.size;
        if (m_flushAt == 0 || m_bytes < m_flushAt)
            return;
        full.swap(m_held);
        m_bytes = 0;
    }
    give(std::move(full)); // on this thread, beside the others' measuring
}

std::size_t PageReleaser::held() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_bytes;
}

void PageReleaser::flush() {
    std::vector<Held> spans;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        spans.swap(m_held);
        m_bytes = 0;
    }
    give(std::move(spans));
}

void PageReleaser::give(std::vector<Held> spans) {
    std::sort(spans.begin(), spans.end(), [](const Held& a, const Held& b) {
        return std::tie(a.file, a.from, a.to) < std::tie(b.file, b.from, b.to);
    });
    std::size_t calls = 0;
    for (std::size_t i = 0; i < spans.size();) {
        Held merged = spans[i++];
        for (; i < spans.size() && spans[i].file == merged.file && spans[i].from <= merged.to + kMergeGap;
             ++i)
            merged.to = std::max(merged.to, spans[i].to);
        merged.file->release(ByteSpan{reinterpret_cast<const std::uint8_t*>(merged.from),
                                      static_cast<std::size_t>(merged.to - merged.from)});
        ++calls;
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    m_calls += calls;
}

std::size_t PageReleaser::calls() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_calls;
}

} // namespace gapscope
