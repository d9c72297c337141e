// The app's responsiveness, offscreen, measured side by side in one run
// (docs/performance.md): the longest the event loop went without turning while
// a session loads, an op is selected and the table sorted; a sort of 100,000
// rows; a heatmap of a 4096 x 4096 tensor. Prints one JSON object last.

#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "app/gui/steps_controller.h"
#include "bench/bench_timing.h"
#include "bench/synthetic_session.h"
#include "core/common/allocator_tuning.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/step_matrix_view.h"
#include "widgets/tensor_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

using namespace gapscope;
using gapscope::bench::median;

namespace {

// Opens `dir` in a fresh window and waits for every stage; returns the window.
std::unique_ptr<MainWindow> load(const QString& dir) {
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    QSignalSpy shown(window.get(), &MainWindow::sessionShown);
    window->openPaths({dir});
    shown.wait(600000);
    return window;
}

// A probe timer every 5 ms: the longest gap between two ticks is the longest
// the UI stalled while `session` loads, then three ops are selected and the
// table sorted. The window is made first: starting the app is not loading.
qint64 maxStallWhileLoading(const QString& session) {
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    QApplication::processEvents();
    QElapsedTimer sinceTick;
    qint64 maxStall = 0;
    QTimer probe;
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, [&] { maxStall = std::max(maxStall, sinceTick.restart()); });
    sinceTick.start();
    probe.start();
    QSignalSpy shown(window.get(), &MainWindow::sessionShown);
    window->openPaths({session});
    shown.wait(600000);
    // Where the longest stall fell: loading, each selection, the sort (stderr).
    std::string phases = "load " + std::to_string(maxStall - 5);
    qint64 before = maxStall;
    const auto phase = [&](const std::string& name) {
        if (maxStall > before)
            phases += ", " + name + " " + std::to_string(maxStall - 5);
        before = maxStall;
    };
    const std::size_t rows = static_cast<std::size_t>(window->inspector()->opModel()->rowCount());
    for (std::size_t row : {std::size_t{0}, rows / 3, rows - 1}) {
        window->inspector()->selectRow(row);
        QApplication::processEvents();
        phase("select row " + std::to_string(row));
    }
    window->inspector()->opView()->sortByColumn(OpTableModel::column(Metric::Mse), Qt::DescendingOrder);
    QApplication::processEvents();
    phase("sort");
    probe.stop();
    std::fprintf(stderr, "longest stall so far, by phase: %s ms\n", phases.c_str());
    return maxStall - 5;
}

// `key` over five loads of `session`, each in a fresh window, as JSON members:
// the median of their longest stalls, and the lowest and highest beside it.
// One load's longest stall is the maximum of a few hundred turns, any of which
// the machine's noise can lengthen: a single load moved 27-52 ms on one build.
std::string stallOverLoads(const QString& session, const std::string& key) {
    std::vector<qint64> stalls;
    for (int load = 0; load < 5; ++load)
        stalls.push_back(maxStallWhileLoading(session));
    std::sort(stalls.begin(), stalls.end());
    return ",\"" + key + "\":" + std::to_string(stalls[2]) + ",\"" + key +
           "_min\":" + std::to_string(stalls.front()) + ",\"" + key +
           "_max\":" + std::to_string(stalls.back());
}

// Switching the run of a 3,000-op session over its workspace, against the same
// request read afresh (File → Reload with that run: what every switch cost
// before the workspace), side by side: the median of five each, from the
// request to the new comparison's table shown (its metrics then arrive in
// stages, as on any load) and to the last stage shown. No switch may parse or
// hash a file again. Returns the JSON members.
std::string switchRun(const QString& dir) {
    bench::writeSyntheticSession(dir.toStdString(), 3000, 4096, bench::SyntheticValues::Normal, 2);
    auto window = load(dir);
    SessionController* sessions = window->controller();
    const auto workspace = sessions->loader()->workspace();
    const std::size_t reads = workspace ? workspace->reads() : 0;
    // Each request's times to the table and to the end.
    const auto time = [&](const std::function<void(std::size_t)>& request) {
        std::vector<qint64> table, done;
        for (std::size_t k = 0; k < 5; ++k) {
            QElapsedTimer t;
            qint64 tableAt = -1;
            // Connected after the window's own slot: runs once the table is shown.
            const auto c = QObject::connect(sessions->loader(), &SessionLoader::opened, window.get(),
                                            [&] { tableAt = t.elapsed(); });
            QSignalSpy shown(window.get(), &MainWindow::sessionShown);
            t.start();
            request(k);
            shown.wait(600000);
            done.push_back(t.elapsed());
            table.push_back(tableAt);
            QObject::disconnect(c);
        }
        return std::make_pair(median(table), median(done));
    };
    const auto [switchTable, switchDone] = time([&](std::size_t k) { sessions->compare({}, (k + 1) % 2); });
    const bool readNothing =
        workspace && workspace->reads() == reads && sessions->loader()->workspace() == workspace;
    const auto [reloadTable, reloadDone] = time([&](std::size_t) { sessions->reload(); });
    std::fprintf(stderr,
                 "switched the run of %zu ops: table in %lld ms, complete in %lld ms (read afresh: %lld ms, "
                 "%lld ms); files read again: %s\n",
                 window->session()->comparison->rows.size(), static_cast<long long>(switchTable),
                 static_cast<long long>(switchDone), static_cast<long long>(reloadTable),
                 static_cast<long long>(reloadDone), readNothing ? "none" : "yes");
    return ",\"switch_run_ms_3000\":" + std::to_string(switchTable) +
           ",\"switch_run_complete_ms_3000\":" + std::to_string(switchDone) +
           ",\"reload_run_ms_3000\":" + std::to_string(reloadTable) +
           ",\"reload_run_complete_ms_3000\":" + std::to_string(reloadDone) +
           ",\"switch_run_reads_no_file\":" + (readNothing ? "true" : "false");
}

// Five clicks on cells of other steps of the steps matrix: from each click to
// that step's table shown (the loader's `opened`), in ms.
std::vector<qint64> clickOtherSteps(MainWindow& window, StepMatrixView& view) {
    std::vector<qint64> switches;
    QElapsedTimer t;
    for (std::size_t k = 1; k <= 5; ++k) {
        qint64 tableAt = -1;
        const auto c = QObject::connect(window.loader(), &SessionLoader::opened, &window,
                                        [&] { tableAt = t.elapsed(); });
        QSignalSpy done(&window, &MainWindow::sessionShown);
        t.start();
        emit view.cellClicked(k * 7 % view.matrix().ops.size(), k * 11 % view.matrix().steps);
        done.wait(600000);
        QObject::disconnect(c);
        switches.push_back(tableAt);
    }
    return switches;
}

// A decode loop of 64 steps × 500 ops (8x8 float32), a capture per step: how
// long after the session is shown the steps matrix is ready (every step
// compared with its own capture), and how long a click on a cell of another
// step takes to show that step's table (median of 5).
std::string stepsView(const QString& dir) {
    bench::writeSyntheticSession(dir.toStdString(), 500, 64, bench::SyntheticValues::Normal, 64, true);
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    QElapsedTimer t;
    qint64 readyAt = -1;
    QObject::connect(window->steps(), &StepsController::ready, window.get(), [&] { readyAt = t.elapsed(); });
    QSignalSpy shown(window.get(), &MainWindow::sessionShown);
    QObject::connect(
        window.get(), &MainWindow::sessionShown, window.get(), [&] { t.start(); }, Qt::SingleShotConnection);
    window->openPaths({dir});
    shown.wait(600000);
    QSignalSpy ready(window->steps(), &StepsController::ready);
    if (readyAt < 0)
        ready.wait(600000);
    const qint64 matrix = readyAt;
    StepMatrixView* view = window->inspector()->stepsView();
    std::vector<qint64> switches = clickOtherSteps(*window, *view);
    std::sort(switches.begin(), switches.end());
    std::fprintf(stderr,
                 "steps: %zu steps x %zu ops ready %lld ms after the session; a step switched in %lld ms\n",
                 view->matrix().steps, view->matrix().ops.size(), static_cast<long long>(matrix),
                 static_cast<long long>(switches[2]));
    return ",\"steps_matrix_ms_64x500\":" + std::to_string(matrix) +
           ",\"switch_step_ms_64x500\":" + std::to_string(switches[2]);
}

// The peak of RssAnon (heap and stacks, not mapped inputs) over a stretch of
// this process, polled every 2 ms on a thread of its own (bench/peak_anon.py's
// measure, from inside: the app is this process).
class AnonPeak {
public:
    AnonPeak()
        : m_thread([this] {
              while (!m_stop.load()) {
                  m_peak = std::max(m_peak.load(), rssAnonKib());
                  std::this_thread::sleep_for(std::chrono::milliseconds(2));
              }
          }) {}
    ~AnonPeak() { stop(); }
    long stop() {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        return m_peak;
    }
    static long rssAnonKib() {
        std::FILE* f = std::fopen("/proc/self/status", "r");
        if (!f)
            return 0;
        char line[256];
        long kib = 0;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "RssAnon: %ld kB", &kib) == 1)
                break;
        std::fclose(f);
        return kib;
    }

private:
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_peak{0};
    std::thread m_thread;
};

// Issue 60: the app on an LLM session (bench/run writes it: 65 steps x 239 ops
// over a debug buffer of more than 1 GiB, a capture per step). From the request
// to open: the first table shown, the steps matrix complete (every step against
// its own capture); then five clicks on other steps (the median from the click
// to that step's table); the longest the event loop stalled over all of it (a
// 5 ms probe); and the peak anonymous memory of the process over all of it.
struct LlmFigures {
    qint64 table = 0, matrix = 0, switchStep = 0, stall = 0;
    double anonMib = 0;
    std::size_t steps = 0, ops = 0;
};

LlmFigures llmLoad(const QString& dir) {
    auto window = std::make_unique<MainWindow>();
    window->resize(1400, 900);
    window->show();
    QApplication::processEvents();
    const long anonBefore = AnonPeak::rssAnonKib();
    AnonPeak anon;
    QElapsedTimer sinceTick;
    qint64 maxStall = 0;
    QTimer probe;
    probe.setInterval(5);
    QObject::connect(&probe, &QTimer::timeout, [&] { maxStall = std::max(maxStall, sinceTick.restart()); });
    QElapsedTimer t;
    qint64 tableAt = -1, matrixAt = -1;
    const auto opened = QObject::connect(window->loader(), &SessionLoader::opened, window.get(), [&] {
        if (tableAt < 0)
            tableAt = t.elapsed();
    });
    QObject::connect(window->steps(), &StepsController::ready, window.get(), [&] {
        if (matrixAt < 0)
            matrixAt = t.elapsed();
    });
    sinceTick.start();
    probe.start();
    t.start();
    QSignalSpy shown(window.get(), &MainWindow::sessionShown);
    window->openPaths({dir});
    shown.wait(600000);
    QSignalSpy ready(window->steps(), &StepsController::ready);
    if (matrixAt < 0)
        ready.wait(600000);
    QObject::disconnect(opened);
    const qint64 loadStall = maxStall - 5;
    StepMatrixView* view = window->inspector()->stepsView();
    std::vector<qint64> switches = clickOtherSteps(*window, *view);
    probe.stop();
    const long peakKib = anon.stop();
    std::sort(switches.begin(), switches.end());
    std::fprintf(
        stderr,
        "llm: %zu steps x %zu ops: table %lld ms, matrix %lld ms, step switch %lld ms (median of 5), "
        "longest stall %lld ms (%lld ms while loading), peak anonymous %.1f MiB (%.1f before)\n",
        view->matrix().steps, view->matrix().ops.size(), static_cast<long long>(tableAt),
        static_cast<long long>(matrixAt), static_cast<long long>(switches[2]),
        static_cast<long long>(maxStall - 5), static_cast<long long>(loadStall),
        static_cast<double>(peakKib) / 1024.0, static_cast<double>(anonBefore) / 1024.0);
    return {tableAt,
            matrixAt,
            switches[2],
            maxStall - 5,
            static_cast<double>(peakKib) / 1024.0,
            view->matrix().steps,
            view->matrix().ops.size()};
}

// Three loads, each in a fresh window: the median of each figure, and the
// longest stall's lowest and highest (one load's longest stall is the maximum
// of a few hundred turns; the first load of a process also pays for its fonts).
std::string llmSession(const QString& dir) {
    std::vector<LlmFigures> loads;
    for (int i = 0; i < 3; ++i)
        loads.push_back(llmLoad(dir));
    const auto med = [&](auto field) {
        std::vector<double> v;
        for (const auto& l : loads)
            v.push_back(static_cast<double>(l.*field));
        return median(v);
    };
    std::vector<qint64> stalls;
    for (const auto& l : loads)
        stalls.push_back(l.stall);
    std::sort(stalls.begin(), stalls.end());
    return ",\"llm_steps\":" + std::to_string(loads[0].steps) +
           ",\"llm_ops\":" + std::to_string(loads[0].ops) +
           ",\"llm_first_table_ms\":" + std::to_string(med(&LlmFigures::table)) +
           ",\"llm_steps_matrix_ms\":" + std::to_string(med(&LlmFigures::matrix)) +
           ",\"llm_switch_step_ms\":" + std::to_string(med(&LlmFigures::switchStep)) +
           ",\"llm_max_stall_ms\":" + std::to_string(stalls[1]) +
           ",\"llm_max_stall_ms_min\":" + std::to_string(stalls.front()) +
           ",\"llm_max_stall_ms_max\":" + std::to_string(stalls.back()) +
           ",\"llm_peak_anon_mib\":" + std::to_string(med(&LlmFigures::anonMib));
}

// A/B: opening a session as B beside another (File → Compare With…) against
// opening it alone, in the same run, each until what it queued for drawing
// (QCustomPlot's queued replots) is drawn: B loads on its own loader, so it should
// cost what it costs alone, plus the pairing. Seven interleaved pairs; the
// ratio is the median of the pairs' ratios, with its quartiles: with three
// pairs and a ratio of medians, one slow opening on this 2-core machine moved
// it between 1.03 and 1.38 from run to run of the same build.
std::string secondSession(const QString& dirA, const QString& dirB) {
    bench::writeSyntheticSession(dirA.toStdString(), 3000, 4096);
    bench::writeSyntheticSession(dirB.toStdString(), 3000, 4096, bench::SyntheticValues::Normal, 2);
    std::vector<qint64> alone, beside;
    std::vector<double> ratios;
    for (int k = 0; k < 7; ++k) {
        {
            // The window made first, as for B: creating it is not opening.
            MainWindow window;
            window.resize(1400, 900);
            window.show();
            QApplication::processEvents();
            QSignalSpy shown(&window, &MainWindow::sessionShown);
            QElapsedTimer t;
            t.start();
            window.openPaths({dirB});
            shown.wait(600000);
            QApplication::processEvents(); // what was queued for drawing, drawn
            alone.push_back(t.elapsed());
        }
        auto window = load(dirA);
        QSignalSpy compared(window->comparison(), &CompareController::compared);
        QElapsedTimer t;
        t.start();
        window->compareWith({dirB});
        compared.wait(600000);
        QApplication::processEvents();
        beside.push_back(t.elapsed());
        ratios.push_back(
            alone.back() > 0 ? static_cast<double>(beside.back()) / static_cast<double>(alone.back()) : 0.0);
    }
    const qint64 a = median(alone), b = median(beside);
    std::sort(ratios.begin(), ratios.end());
    const double ratio = ratios[ratios.size() / 2], q1 = ratios[ratios.size() / 4],
                 q3 = ratios[ratios.size() * 3 / 4];
    std::fprintf(
        stderr,
        "a 3,000-op session: %lld ms alone, %lld ms beside another (medians of %zu interleaved pairs); "
        "ratio %.2f (quartiles %.2f-%.2f)\n",
        static_cast<long long>(a), static_cast<long long>(b), ratios.size(), ratio, q1, q3);
    return ",\"open_b_alone_ms_3000\":" + std::to_string(a) +
           ",\"open_b_beside_ms_3000\":" + std::to_string(b) + ",\"open_b_ratio\":" + std::to_string(ratio) +
           ",\"open_b_ratio_q1\":" + std::to_string(q1) + ",\"open_b_ratio_q3\":" + std::to_string(q3);
}

// Cancelling the load of a 3,000-op session (two executions, 64x64 float32 an
// op; what the Cancel button and quitting do): from cancel() to the load's job
// returned, when cancelled at 0, 20, 50, 100, 200 and 400 ms into the load, so
// that every stage (reading, planning, measuring) is cancelled in some run.
// The worst of them, and each (stderr).
std::string cancelLoad(const QString& dir) {
    bench::writeSyntheticSession(dir.toStdString(), 3000, 4096, bench::SyntheticValues::Normal, 2);
    qint64 worst = 0;
    std::string each;
    for (const bool quit : {false, true})
        for (const int after : {0, 20, 50, 100, 200, 400}) {
            auto window = std::make_unique<MainWindow>();
            window->resize(1400, 900);
            window->show();
            QApplication::processEvents();
            SessionLoader* loader = window->controller()->loader();
            window->openPaths({dir});
            QElapsedTimer t;
            t.start();
            while (t.elapsed() < after)
                QApplication::processEvents(QEventLoop::AllEvents, 5);
            const bool wasBusy = loader->busy();
            QElapsedTimer c;
            c.start();
            if (quit) {
                window.reset(); // what closing the window does: every job cancelled and joined
            } else {
                loader->cancel();
                while (loader->jobsRunning() > 0)
                    QThread::usleep(200);
            }
            const qint64 ms = c.elapsed();
            worst = std::max(worst, ms);
            each += std::string(each.empty() ? "" : ", ") + (quit ? "quit " : "cancel ") +
                    std::to_string(after) + ": " + std::to_string(ms) + (wasBusy ? "" : " (loaded already)");
        }
    std::fprintf(stderr, "stopping the load of 3,000 ops (ms into the load: ms to stop) %s\n", each.c_str());
    return ",\"cancel_load_ms_3000\":" + std::to_string(worst);
}

} // namespace

int main(int argc, char** argv) {
    tuneAllocator(); // as the app does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("gapscope-bench")); // not the user's settings
    QTemporaryDir dir;
    std::string json = "{\"benchmark\":\"gapscope_ui_bench\"";

    // The longest the UI stalled while a 2,000-op session of 256x256 tensors
    // loads, then ops are selected and the table sorted; and the same on the
    // session given as the first argument (bench/run: 4 GiB a side). Each the
    // median of five loads, with their lowest and highest.
    // --only DIR: the stall on that session alone, for a profiler.
    if (argc > 2 && std::string(argv[1]) == "--only") {
        std::printf("%s,\"ui_max_stall_ms\":%lld}\n", json.c_str(),
                    static_cast<long long>(maxStallWhileLoading(QString::fromLocal8Bit(argv[2]))));
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--ab") {
        std::printf("%s%s}\n", json.c_str(),
                    secondSession(dir.filePath(QStringLiteral("ab-a")), dir.filePath(QStringLiteral("ab-b")))
                        .c_str());
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--steps") {
        std::printf("%s%s}\n", json.c_str(), stepsView(dir.filePath(QStringLiteral("steps"))).c_str());
        return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "--llm") { // the LLM session bench/run writes
        std::printf("%s%s}\n", json.c_str(), llmSession(QString::fromLocal8Bit(argv[2])).c_str());
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--cancel") {
        std::printf("%s%s}\n", json.c_str(), cancelLoad(dir.filePath(QStringLiteral("cancel"))).c_str());
        return 0;
    }
    if (argc > 1 && std::string(argv[1]) == "--switch") {
        std::printf("%s%s}\n", json.c_str(), switchRun(dir.filePath(QStringLiteral("two-runs"))).c_str());
        return 0;
    }
    const QString big = dir.filePath(QStringLiteral("big"));
    bench::writeSyntheticSession(big.toStdString(), 2000, 65536);
    json += stallOverLoads(big, "ui_max_stall_ms_2000_ops");
    if (argc > 1)
        json += stallOverLoads(QString::fromLocal8Bit(argv[1]), "ui_max_stall_ms");

    // Switching the run of a 3,000-op session (two executions, 64x64 float32 an
    // op) over the loaded workspace (--switch: this alone, for a profiler).
    json += switchRun(dir.filePath(QStringLiteral("two-runs")));
    json += cancelLoad(dir.filePath(QStringLiteral("cancel")));
    json += stepsView(dir.filePath(QStringLiteral("steps")));
    json += secondSession(dir.filePath(QStringLiteral("ab-a")), dir.filePath(QStringLiteral("ab-b")));

    // Sorting 100,000 rows on a metric, through the proxy the table uses.
    const QString many = dir.filePath(QStringLiteral("many"));
    bench::writeSyntheticSession(many.toStdString(), 100000, 16);
    {
        auto window = load(many);
        window->inspector()->opProxy()->sort(OpTableModel::Index,
                                             Qt::AscendingOrder); // whatever the settings restored
        QElapsedTimer t;
        t.start();
        window->inspector()->opProxy()->sort(OpTableModel::column(Metric::Mse), Qt::DescendingOrder);
        const qint64 sort = t.elapsed();
        const auto first = window->inspector()
                               ->opProxy()
                               ->index(0, OpTableModel::column(Metric::Mse))
                               .data(OpTableModel::SortRole)
                               .toDouble();
        const auto last =
            window->inspector()
                ->opProxy()
                ->index(window->inspector()->opProxy()->rowCount() - 1, OpTableModel::column(Metric::Mse))
                .data(OpTableModel::SortRole)
                .toDouble();
        std::fprintf(stderr, "sorted %d rows in %lld ms: MSE %g first, %g last\n",
                     window->inspector()->opProxy()->rowCount(), static_cast<long long>(sort), first, last);
        json += ",\"sort_ms_100k_rows\":" + std::to_string(sort) +
                ",\"rows\":" + std::to_string(window->inspector()->opModel()->rowCount());
    }

    // One op of 4096 x 4096 float32: what selecting it costs the UI thread
    // (the heatmaps, downsampled to 256 a side; the breakdown goes to a job).
    const QString huge = dir.filePath(QStringLiteral("huge"));
    bench::writeSyntheticSession(huge.toStdString(), 2, 4096 * 4096);
    {
        auto window = load(huge);
        window->inspector()->selectRow(std::size_t{1});
        QElapsedTimer t;
        t.start();
        window->inspector()->selectRow(std::size_t{0});
        QApplication::processEvents(); // the queued replots of the heatmaps count too
        json += ",\"heatmap_ms_4096\":" + std::to_string(t.elapsed());
    }
    std::printf("%s}\n", json.c_str());
    return 0;
}
