#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_controller.h"
#include "core/common/allocator_tuning.h"
#include "core/report/compare_report.h"
#include "core/report/safe_text.h"
#include "core/report/version_info.h"
#include "core/session/session.h"
#include "widgets/gap_chart.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_view.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QScreen>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// A message to stderr; names in it come from the inputs, so control characters
// are escaped (no escape sequence reaches the terminal) and each line is bounded.
void printError(const QString& message) {
    std::string text = gapscope::terminalText(message.toStdString(), true);
    if (const auto cut = gapscope::characterBoundary(text, 4096); cut < text.size())
        text = text.substr(0, cut) + "… (cut)";
    std::fprintf(stderr, "gapscope: %s\n", text.c_str());
}

// --help and --version are answered before QApplication exists: it needs a
// display (or QT_QPA_PLATFORM), and a user asking for the version on a server
// over ssh should get it, not "could not connect to display".
bool asksForHelpOrVersion(int argc, char** argv, bool& version) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0)
            return false;
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
            version = true;
            return true;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "--help-all") == 0 ||
            std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "-?") == 0)
            return true;
    }
    return false;
}

// --screenshot and --report show no window: without a display (a CI runner, ssh)
// they take Qt's offscreen platform themselves instead of aborting on "could not
// connect to display". An explicit QT_QPA_PLATFORM wins.
void offscreenWhenHeadless(int argc, char** argv) {
    const auto set = [](const char* name) {
        const char* v = std::getenv(name);
        return v && *v;
    };
    if (set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY"))
        return;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--") == 0)
            return;
        for (const char* option : {"--screenshot", "--report"}) {
            const std::size_t n = std::strlen(option);
            if (std::strncmp(argv[i], option, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
                qputenv("QT_QPA_PLATFORM", "offscreen");
                return;
            }
        }
    }
}

// --size WxH, else the restored geometry, else (a first start) large but never
// past the screen (a 1366x768 laptop).
void sizeWindow(gapscope::MainWindow& window, const QString& size) {
    if (!size.isEmpty()) {
        const auto wh = size.split(QLatin1Char('x'));
        window.resize(wh.value(0).toInt() > 0 ? wh.value(0).toInt() : 1500,
                      wh.value(1).toInt() > 0 ? wh.value(1).toInt() : 1000);
    } else if (!window.restoredGeometry()) {
        const QRect screen = window.screen()->availableGeometry();
        window.resize(std::min(1500, screen.width() - 40), std::min(1000, screen.height() - 60));
    }
}

} // namespace

int main(int argc, char** argv) {
    gapscope::tuneAllocator(); // before the first allocation worth speaking of
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Gapscope: which op made an ExecuTorch model drift from its reference.\n"
                       "Opens an ETDump with its debug buffer, ETRecord and AOT capture (docs/gui.md)."));
    parser.addHelpOption();
    const QCommandLineOption versionOption(
        QStringList{QStringLiteral("v"), QStringLiteral("version")},
        QStringLiteral("Print the versions of Gapscope, the ExecuTorch "
                       "formats it reads, Qt and the exporter, and exit."));
    parser.addOption(versionOption);
    QCommandLineOption demo(QStringLiteral("demo"),
                            QStringLiteral("Open the embedded demo session (int8, XNNPACK)."));
    QCommandLineOption qnnDemo(QStringLiteral("demo-qnn"),
                               QStringLiteral("Open the embedded QNN demo session (8a8w, Qualcomm HTP)."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Load, render the window to OUT.png and exit."),
                                  QStringLiteral("OUT"));
    QCommandLineOption size(
        QStringLiteral("size"),
        QStringLiteral("Window size WxH (default: the last size, else 1500x1000 within the "
                       "screen)."),
        QStringLiteral("WxH"));
    QCommandLineOption report(
        QStringLiteral("report"),
        QStringLiteral("Load, write the report folder (as File → Export report) to DIR and exit."),
        QStringLiteral("DIR"));
    QCommandLineOption view(QStringLiteral("view"),
                            QStringLiteral("Start on the ops table, the coverage, the graph, the A/B "
                                           "comparison or the steps (default: ops)."),
                            QStringLiteral("ops|coverage|graph|ab|steps"), QStringLiteral("ops"));
    QCommandLineOption chart(QStringLiteral("chart"),
                             QStringLiteral("Below the tensors, show the gap per op or each op's time "
                                            "against its gap (default: gap)."),
                             QStringLiteral("gap|speed"), QStringLiteral("gap"));
    QCommandLineOption compareWith(
        QStringLiteral("compare-with"),
        QStringLiteral("Open this session beside the first as B, in the A/B tab (docs/compare-runs.md): "
                       "a folder, or its files, the option once per file."),
        QStringLiteral("PATH"));
    QCommandLineOption capture(
        QStringLiteral("capture"),
        QStringLiteral("Compare against this capture (opened with the other files) when several are given; "
                       "default: the ETRecord graph's, ExecuTorch's reference."),
        QStringLiteral("CAPTURE"));
    parser.addOptions({demo, qnnDemo, screenshot, size, report, view, chart, capture, compareWith});
    parser.addPositionalArgument(
        QStringLiteral("files"),
        QStringLiteral(
            "The ETDump (.etdp), its debug buffer, the ETRecord and the AOT capture, a folder holding "
            "them, or a saved session (.gapscope.json)."),
        QStringLiteral("[files…]"));

    bool version = false;
    if (asksForHelpOrVersion(argc, argv, version)) {
        const std::string text =
            version ? gapscope::versionText("gapscope", qVersion())
                    : parser.helpText()
                          .replace(QStringLiteral("<executable_name>"), QStringLiteral("gapscope"))
                          .toStdString();
        std::fputs(text.c_str(), stdout);
        return 0;
    }

    offscreenWhenHeadless(argc, argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Gapscope"));
    QApplication::setApplicationName(QStringLiteral("gapscope"));
    QApplication::setApplicationVersion(QString::fromStdString(gapscope::gapscopeVersion()));
    parser.process(app);

    gapscope::MainWindow window; // restores the last geometry
    const bool headless = parser.isSet(screenshot) || parser.isSet(report);
    window.controller()->setRecordsRecent(!headless); // a scripted run is not a session the user opened
    sizeWindow(window, parser.isSet(size) ? parser.value(size) : QString());
    if (parser.isSet(qnnDemo))
        window.openQnnDemo();
    else if (parser.isSet(demo))
        window.openDemo();
    else if (!parser.positionalArguments().isEmpty() || parser.isSet(capture)) {
        QStringList paths = parser.positionalArguments();
        if (parser.isSet(capture))
            paths << parser.value(capture);
        const QString error = window.openPaths(paths);
        if (!error.isEmpty() && headless) {
            printError(error); // nothing will load: waiting for it would never end
            return 1;
        }
        if (parser.isSet(capture)) // the same files, this reference among them
            window.controller()->chooseCapture(QFileInfo(parser.value(capture)).absoluteFilePath());
    }

    const auto tab = QStringList{QStringLiteral("ops"), QStringLiteral("coverage"), QStringLiteral("graph"),
                                 QStringLiteral("ab"), QStringLiteral("steps")}
                         .indexOf(parser.value(view));
    if (tab < 0) {
        printError(QStringLiteral("--view takes ops, coverage, graph, ab or steps, not '%1'")
                       .arg(parser.value(view)));
        return 2;
    }
    if (parser.isSet(compareWith)) {
        QStringList pathsB;
        for (const QString& p : parser.values(compareWith))
            pathsB << QFileInfo(p).absoluteFilePath();
        window.compareWith(pathsB);
    }
    window.inspector()->showTab(static_cast<int>(tab));
    const auto chartTab =
        QStringList{QStringLiteral("gap"), QStringLiteral("speed")}.indexOf(parser.value(chart));
    if (chartTab < 0) {
        printError(QStringLiteral("--chart takes gap or speed, not '%1'").arg(parser.value(chart)));
        return 2;
    }
    window.inspector()->showChart(static_cast<int>(chartTab));
    if (parser.isSet(report)) {
        // No window shown: the report renders off-screen from the loaded session.
        QObject::connect(&window, &gapscope::MainWindow::sessionShown, &app, [&] {
            // What the CLI refuses to report, the headless app refuses too, in its
            // words; files beside the session that are no input it warns about, as
            // the CLI does (issue 55, class 5).
            if (const auto session = window.session()) {
                if (const auto why = gapscope::whySessionUnusable(*session)) {
                    printError(QString::fromStdString(*why));
                    QApplication::exit(1);
                    return;
                }
                for (std::size_t i = 0; i < session->unrecognized_errors; ++i)
                    printError(QStringLiteral("warning: ") +
                               QString::fromStdString(session->errors[i].describe()));
            }
            const auto start = [&] {
                auto* exporter =
                    new gapscope::ReportExporter(window.session(), window.inspector()->chart()->metric(),
                                                 parser.value(report), 3, &window);
                exporter->setSessionName(window.sessionName());
                if (window.comparison()->runs()) // --compare-with: the A/B is a section of the report
                    exporter->setComparedRuns(window.comparison()->runs(),
                                              window.inspector()->runDiffView()->model()->metric());
                QObject::connect(exporter, &gapscope::ReportExporter::finished, &app, [](const QString& err) {
                    if (!err.isEmpty())
                        printError(err);
                    QApplication::exit(err.isEmpty() ? 0 : 1);
                });
                exporter->start();
            };
            // With --compare-with, once B is paired (or could not be).
            auto* compare = window.comparison();
            if (compare->hasB() && (compare->busy() || (!compare->runs() && !compare->failedB())))
                QObject::connect(compare, &gapscope::CompareController::settled, &app, start,
                                 Qt::SingleShotConnection);
            else
                start();
        });
        return QApplication::exec();
    }
    if (parser.isSet(screenshot)) {
        window.show();
        int status = 0;
        window.screenshotWhenLoaded(parser.value(screenshot), [&](bool ok) {
            if (!ok)
                printError(QStringLiteral("could not write %1").arg(parser.value(screenshot)));
            status = ok ? 0 : 1;
            QApplication::exit(status);
        });
        return QApplication::exec();
    }
    window.show();
    return QApplication::exec();
}
