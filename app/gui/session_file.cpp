#include "app/gui/session_file.h"

#include "core/common/atomic_file.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

namespace gapscope {

namespace {

using nlohmann::json;

constexpr qint64 kMaxSessionFile = 1 << 20;
constexpr std::size_t kMaxDepth = 32; // the format nests two levels; anything deeper is not ours

// Before the document is built: a key given twice in one object (JSON libraries
// keep one of the two silently), and nesting past kMaxDepth.
class StructureCheck : public json::json_sax_t {
public:
    std::string problem;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return open(true); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(false); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (!m_keys.back().insert(k).second) {
            problem = "the key \"" + k + "\" appears twice in one object";
            return false;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& e) override {
        problem = "not JSON at byte " + std::to_string(position) + " (" + e.what() + ")";
        return false;
    }

private:
    bool open(bool object) {
        if (m_keys.size() >= kMaxDepth) {
            problem = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
            return false;
        }
        m_keys.emplace_back();
        (void)object;
        return true;
    }
    bool close() {
        m_keys.pop_back();
        return true;
    }
    std::vector<std::set<std::string>> m_keys{{}};
};

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A key's value shown in a message: short, and never the whole of a huge string.
QString shown(const json& v) {
    std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return q(text);
}

std::optional<QString> optionalString(const json& o, const char* key, QString& out) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return std::nullopt;
    if (!it->is_string())
        return QStringLiteral("\"%1\": %2 is not a string").arg(QLatin1String(key), shown(*it));
    out = q(it->get<std::string>());
    return std::nullopt;
}

// A whole number from 0 to INT_MAX: 0.5 and 1e10 are errors, not run 0.
std::optional<int> wholeNumber(const json& v) {
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<int>::max())
                   ? std::optional<int>(int(v.get<std::uint64_t>()))
                   : std::nullopt;
    if (v.is_number_integer())
        return std::nullopt; // negative (non-negative integers parse as unsigned)
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::floor(d) == d && d >= 0 && d <= std::numeric_limits<int>::max())
            return int(d);
    }
    return std::nullopt;
}

QString resolved(const QDir& folder, const QString& path) {
    return path.isEmpty() || QDir::isAbsolutePath(path) ? path
                                                        : QDir::cleanPath(folder.absoluteFilePath(path));
}

std::optional<QString> readFields(const json& o, const QDir& folder, SessionFile& s) {
    const auto files = o.find("files");
    if (files == o.end() || !files->is_array())
        return QStringLiteral("\"files\" is missing or not a list of paths");
    for (std::size_t i = 0; i < files->size(); ++i) {
        const json& f = (*files)[i];
        if (!f.is_string() || f.get<std::string>().empty())
            return QStringLiteral("\"files\"[%1]: %2 is not a path").arg(i).arg(shown(f));
        s.files << resolved(folder, q(f.get<std::string>()));
    }
    if (s.files.isEmpty())
        return QStringLiteral("the session lists no files (\"files\" is empty)");
    if (const auto run = o.find("run"); run != o.end() && !run->is_null()) {
        s.run = wholeNumber(*run);
        if (!s.run)
            return QStringLiteral("\"run\": %1 is not a run number (a whole number from 0)").arg(shown(*run));
    }
    for (const auto& [key, out] : {std::pair<const char*, QString*>{"method", &s.method},
                                   {"capture", &s.capture},
                                   {"debug_buffer", &s.debugBuffer},
                                   {"filter", &s.filter}})
        if (auto err = optionalString(o, key, *out))
            return err;
    s.capture = resolved(folder, s.capture);
    s.debugBuffer = resolved(folder, s.debugBuffer);
    if (const auto t = o.find("threshold"); t != o.end() && !t->is_null()) {
        const auto metric = t->is_object() && t->contains("metric") && (*t)["metric"].is_string()
                                ? findMetric((*t)["metric"].get<std::string>())
                                : std::nullopt;
        if (!metric)
            return QStringLiteral("\"threshold\": %1 names no metric Gapscope knows").arg(shown(*t));
        const auto value = t->find("value");
        if (value == t->end() || !value->is_number() || !std::isfinite(value->get<double>()))
            return QStringLiteral("\"threshold\": %1 has no finite \"value\"").arg(shown(*t));
        s.threshold = MetricThreshold{metric->id, value->get<double>()};
    }
    if (const auto sel = o.find("selected_op"); sel != o.end() && !sel->is_null()) {
        const auto row = sel->is_object() && sel->contains("row") ? wholeNumber((*sel)["row"]) : std::nullopt;
        if (!row)
            return QStringLiteral("\"selected_op\": %1 has no row number").arg(shown(*sel));
        s.selectedRow = row;
        if (auto err = optionalString(*sel, "name", s.selectedOp))
            return QStringLiteral("\"selected_op\": ") + *err;
    }
    return std::nullopt;
}

} // namespace

QString writeSessionFile(const QString& path, const SessionFile& session) {
    const auto absolute = [](const QString& p) {
        return p.isEmpty() ? std::string() : QFileInfo(p).absoluteFilePath().toStdString();
    };
    json o = json::object();
    o["gapscope_session"] = 1;
    o["files"] = json::array();
    for (const auto& f : session.files)
        o["files"].push_back(absolute(f));
    o["run"] = session.run ? json(*session.run) : json(nullptr);
    if (!session.method.isEmpty())
        o["method"] = session.method.toStdString();
    if (!session.capture.isEmpty())
        o["capture"] = absolute(session.capture);
    if (!session.debugBuffer.isEmpty())
        o["debug_buffer"] = absolute(session.debugBuffer);
    if (session.threshold)
        o["threshold"] = {{"metric", metricName(session.threshold->metric)},
                          {"value", session.threshold->value}};
    if (!session.filter.isEmpty())
        o["filter"] = session.filter.toStdString();
    if (session.selectedRow)
        o["selected_op"] = {{"row", *session.selectedRow}, {"name", session.selectedOp.toStdString()}};
    const std::string bytes = o.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    // Only a session file is replaced: a name typed over a report, a chart or an input is refused.
    const QFileInfo target(path);
    if (target.exists() && target.isFile() && !isSessionFile(path))
        return QStringLiteral("%1: not replaced, it is not a Gapscope session file").arg(path);
    if (auto err = writeFileAtomically(path.toStdString(), bytes))
        return q(err->describe());
    return {};
}

bool isSessionFile(const QString& path) {
    const QFileInfo info(path);
    if (!info.isFile() || info.size() > kMaxSessionFile)
        return false;
    // Claimed by its key, so that a broken one is reported as a session file.
    QFile f(path);
    return f.open(QIODevice::ReadOnly) && f.read(kMaxSessionFile).contains("\"gapscope_session\"");
}

std::optional<SessionFile> readSessionFile(const QString& path, QString* error) {
    auto fail = [&](const QString& why) {
        if (error)
            *error = path + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    const QFileInfo info(path);
    if (!info.isFile())
        return fail(QStringLiteral("not a regular file"));
    if (info.size() > kMaxSessionFile)
        return fail(QStringLiteral("%1 bytes, over the 1 MiB a session file can be").arg(info.size()));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot open for reading (%1)").arg(f.errorString()));
    const QByteArray bytes = f.read(kMaxSessionFile + 1);
    const std::string text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    StructureCheck check;
    if (!json::sax_parse(text, &check))
        return fail(q(check.problem));
    const json o = json::parse(text, nullptr, false);
    if (!o.is_object())
        return fail(QStringLiteral("not a JSON object"));
    const auto version = o.find("gapscope_session");
    if (version == o.end() || *version != 1)
        return fail(QStringLiteral("not a Gapscope session file (no \"gapscope_session\": 1)"));
    SessionFile s;
    if (auto err = readFields(o, info.absoluteDir(), s))
        return fail(*err);
    return s;
}

QString sessionFileName(const QString& chosen) {
    static const QString suffix = QStringLiteral(".gapscope.json");
    if (chosen.endsWith(suffix, Qt::CaseInsensitive))
        return chosen;
    if (chosen.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive))
        return chosen.left(chosen.size() - 5) + suffix;
    return chosen + suffix;
}

} // namespace gapscope
