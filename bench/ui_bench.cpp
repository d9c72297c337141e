// The app's responsiveness, offscreen, measured side by side in one run
// (docs/performance.md): the longest the event loop went without turning while
// a session loads, an op is selected and the table sorted; a sort of 100,000
// rows; a heatmap of a 4096 x 4096 tensor. Prints one JSON object last.

#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "bench/synthetic_session.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/tensor_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>

using namespace gapscope;

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
    const std::size_t rows = static_cast<std::size_t>(window->opModel()->rowCount());
    for (std::size_t row : {std::size_t{0}, rows / 3, rows - 1}) {
        window->inspector()->selectRow(row);
        QApplication::processEvents();
        phase("select row " + std::to_string(row));
    }
    window->opView()->sortByColumn(OpTableModel::Mse, Qt::DescendingOrder);
    QApplication::processEvents();
    phase("sort");
    probe.stop();
    std::fprintf(stderr, "longest stall so far, by phase: %s ms\n", phases.c_str());
    return maxStall - 5;
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("gapscope-bench")); // not the user's settings
    QTemporaryDir dir;
    std::string json = "{\"benchmark\":\"gapscope_ui_bench\"";

    // The longest the UI stalled while a 2,000-op session of 256x256 tensors
    // loads, then ops are selected and the table sorted; and the same on the
    // session given as the first argument (bench/run: 4 GiB a side).
    // --only DIR: the stall on that session alone, for a profiler.
    if (argc > 2 && std::string(argv[1]) == "--only") {
        std::printf("%s,\"ui_max_stall_ms\":%lld}\n", json.c_str(),
                    static_cast<long long>(maxStallWhileLoading(QString::fromLocal8Bit(argv[2]))));
        return 0;
    }
    const QString big = dir.filePath(QStringLiteral("big"));
    bench::writeSyntheticSession(big.toStdString(), 2000, 65536);
    json += ",\"ui_max_stall_ms_2000_ops\":" + std::to_string(maxStallWhileLoading(big));
    if (argc > 1)
        json +=
            ",\"ui_max_stall_ms\":" + std::to_string(maxStallWhileLoading(QString::fromLocal8Bit(argv[1])));

    // Sorting 100,000 rows on a metric, through the proxy the table uses.
    const QString many = dir.filePath(QStringLiteral("many"));
    bench::writeSyntheticSession(many.toStdString(), 100000, 16);
    {
        auto window = load(many);
        window->opProxy()->sort(OpTableModel::Index, Qt::AscendingOrder); // whatever the settings restored
        QElapsedTimer t;
        t.start();
        window->opProxy()->sort(OpTableModel::Mse, Qt::DescendingOrder);
        const qint64 sort = t.elapsed();
        const auto first =
            window->opProxy()->index(0, OpTableModel::Mse).data(OpTableModel::SortRole).toDouble();
        const auto last = window->opProxy()
                              ->index(window->opProxy()->rowCount() - 1, OpTableModel::Mse)
                              .data(OpTableModel::SortRole)
                              .toDouble();
        std::fprintf(stderr, "sorted %d rows in %lld ms: MSE %g first, %g last\n",
                     window->opProxy()->rowCount(), static_cast<long long>(sort), first, last);
        json += ",\"sort_ms_100k_rows\":" + std::to_string(sort) +
                ",\"rows\":" + std::to_string(window->opModel()->rowCount());
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
