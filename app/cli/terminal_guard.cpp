#include "app/cli/terminal_guard.h"

#include "core/report/safe_text.h"

namespace gapscope::cli {

namespace {
// Held before a flush: a line without a line feed (a JSON document written in
// one piece) is passed on in pieces of this size, cut at a character boundary.
constexpr std::size_t kMaxHeld = 1 << 20;
} // namespace

TerminalGuard::TerminalGuard(std::ostream& stream, std::size_t maxLineBytes)
    : m_stream(stream), m_target(stream.rdbuf(this)), m_maxLineBytes(maxLineBytes) {}

TerminalGuard::~TerminalGuard() {
    sync();
    m_stream.rdbuf(m_target);
}

void TerminalGuard::emitLine(bool complete) {
    std::size_t keep = 0; // bytes of an unfinished UTF-8 sequence kept for the next piece
    if (!complete) {
        std::size_t i = m_line.size();
        while (i > 0 && m_line.size() - i < 4 && (static_cast<unsigned char>(m_line[i - 1]) & 0xc0) == 0x80)
            --i;
        if (i > 0 && static_cast<unsigned char>(m_line[i - 1]) >= 0xc0)
            keep = m_line.size() - (i - 1);
    }
    std::string text = terminalText(std::string_view(m_line).substr(0, m_line.size() - keep), true);
    m_line.erase(0, m_line.size() - keep);
    if (m_maxLineBytes > 0) {
        const std::size_t room = m_maxLineBytes > m_lineBytes ? m_maxLineBytes - m_lineBytes : 0;
        m_lineBytes += text.size();
        text.resize(characterBoundary(text, room));
        if (complete && m_lineBytes > m_maxLineBytes)
            text += "… (line cut: " + std::to_string(m_lineBytes - m_maxLineBytes) + " more bytes)";
    }
    if (complete) {
        text += '\n';
        m_lineBytes = 0;
    }
    m_target->sputn(text.data(), static_cast<std::streamsize>(text.size()));
}

std::streamsize TerminalGuard::xsputn(const char* s, std::streamsize n) {
    for (std::streamsize i = 0; i < n; ++i) {
        if (s[i] == '\n')
            emitLine(true);
        else
            m_line += s[i];
        if (m_line.size() >= kMaxHeld)
            emitLine(false);
    }
    return n;
}

TerminalGuard::int_type TerminalGuard::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof()))
        return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    xsputn(&c, 1);
    return ch;
}

int TerminalGuard::sync() {
    if (!m_line.empty())
        emitLine(false);
    return m_target->pubsync();
}

} // namespace gapscope::cli
