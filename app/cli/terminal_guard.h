#pragma once

#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>

namespace gapscope::cli {

// Everything gapscope-cli prints passes through this: a name in an input file
// can hold ESC, BEL, CR or an OSC 52 clipboard write, and printed raw it would
// act on the user's terminal. Each line is written as terminalText makes it
// (control characters visibly escaped, line feeds kept); on stderr a line is
// also cut at `maxLineBytes`, so a message echoing a 1,000,000-character name
// stays a message. JSON on stdout is unchanged: its writer escapes controls
// itself, and no line of it is cut.
class TerminalGuard : public std::streambuf {
public:
    TerminalGuard(std::ostream& stream, std::size_t maxLineBytes);
    ~TerminalGuard() override;
    TerminalGuard(const TerminalGuard&) = delete;
    TerminalGuard& operator=(const TerminalGuard&) = delete;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void emitLine(bool complete);

    std::ostream& m_stream;
    std::streambuf* m_target;
    std::size_t m_maxLineBytes;
    std::string m_line;
    std::size_t m_lineBytes = 0; // bytes of the current line written or cut so far
};

} // namespace gapscope::cli
