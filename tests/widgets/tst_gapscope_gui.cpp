// Qt Test suite for the widgets and the main window, offscreen. Models are
// checked with QAbstractItemModelTester; expectations are computed from the core
// on the same files, not hard-coded.

#include "app/gui/app_settings.h"
#include "app/gui/inspector_view.h"
#include "app/gui/ladder_controller.h"
#include "app/gui/main_window.h"
#include "app/gui/production_checker.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_loader.h"
#include "app/gui/welcome_page.h"
#include "core/compare/comparison.h"
#include "core/compare/metric_catalog.h"
#include "core/etdump/element_decode.h"
#include "widgets/coverage_model.h"
#include "widgets/gap_chart.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/plot_export.h"
#include "widgets/stage_ladder_model.h"
#include "widgets/stage_ladder_view.h"
#include "widgets/table_roles.h"
#include "widgets/tap_fields_model.h"
#include "widgets/tensor_panel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QSvgRenderer>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

using namespace gapscope;

namespace {

QStringList demoFiles() {
    const QDir dir(QStringLiteral(GAPSCOPE_DEMO_DIR));
    QStringList files;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors"})
        files << dir.filePath(QString::fromLatin1(name));
    return files;
}

// The demo's files except the debug buffer, copied where it does not lie beside
// the ETDump (opened alone, run.etdp brings run.debug.bin along).
QStringList demoFilesWithoutDebugBuffer(const QTemporaryDir& dir) {
    QStringList files;
    for (const auto& f : demoFiles())
        if (!f.endsWith(QStringLiteral(".debug.bin"))) {
            files << dir.filePath(QFileInfo(f).fileName());
            QFile::copy(f, files.back());
        }
    return files;
}

std::shared_ptr<const Session> demoSession() {
    std::vector<std::string> paths;
    for (const auto& f : demoFiles())
        paths.push_back(f.toStdString());
    std::vector<Error> errors;
    return loadSession(sessionInputsFromPaths(paths, errors));
}

void dropFiles(MainWindow& window, const QStringList& files) {
    auto* mime = new QMimeData;
    QList<QUrl> urls;
    for (const auto& f : files)
        urls << QUrl::fromLocalFile(f);
    mime->setUrls(urls);
    // As a real drag does: enter (which makes the window the drop target), then drop.
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    delete mime;
}

// Shows a window of the given size and opens the embedded demo in it, all stages done.
bool showDemo(MainWindow& window, QSize size) {
    window.resize(size);
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openDemo();
    return shown.wait(20000);
}

// A generated session big enough that metrics take several batches.
void makeSession(const QString& dir, int ops, int elements) {
    QProcess make;
    make.start(QStringLiteral(GAPSCOPE_MAKE_SESSION), {dir, QString::number(ops), QString::number(elements)});
    QVERIFY(make.waitForFinished(60000));
    QCOMPARE(make.exitCode(), 0);
}

int pendingMetricCells(const OpTableModel& model) {
    int pending = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        pending += model.index(r, OpTableModel::column(Metric::Mse)).data().toString() == QStringLiteral("…");
    return pending;
}

} // namespace

class GapscopeGuiTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void modelsPassTheModelTester();
    void sortsOnNumbersAndFilters();
    void demoOpensAndSelectionIsLinked();
    void droppedFilesBuildASession();
    void bogusFileRaisesTheBanner();
    void runSelectorRecomparesAnotherRun();
    void methodSelectorComparesEachMethodOfAProgram();
    void sessionsSaveReopenAndAreRemembered();
    void aNewerLoadSupersedesAnOlderOne();
    void resultsArriveInStages();
    void aBigUnmeasuredTensorWaitsForItsMetrics();
    void anOpWithNothingComparedClearsTheDetailPlots();
    void cancellingWhileMeasuringKeepsTheTable();
    void bigTensorDetailsArriveWithoutBlocking();
    void layoutIsRemembered();
    void exportsCsvAndScreenshot();
    void everyPlotSavesAsPngPdfAndSvg();
    void qnnPanelShowsWhatTheMetricsCompared();
    void tapsListUnderTheirDelegateWithTheirBounds();
    void productionCheckRunsOffTheUiThreadAndSaysItsVerdict();
    void statsTapShowsItsFieldsAndItsBoundsStandApart();
    void stageLadderFillsItsTabTheLostColumnAndTheChart();
};

namespace {

const std::string kTapFixture = GAPSCOPE_TEST_DATA_DIR "/xnnpack_taps_int8";

// The tap fixture against one of its captures ("float" or "capture").
std::shared_ptr<const Session> tapFixture(const std::string& capture) {
    std::vector<Error> errors;
    SessionOptions options;
    options.capture = kTapFixture + "/" + capture + ".gscap.safetensors";
    return loadSession(sessionInputsFromPaths({kTapFixture}, errors), options);
}

} // namespace

void GapscopeGuiTest::initTestCase() {
    // Settings of our own, emptied: a run never sees what an earlier one saved.
    QCoreApplication::setOrganizationName(QStringLiteral("GapscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_gapscope_gui"));
    QSettings().clear();
}

void GapscopeGuiTest::modelsPassTheModelTester() {
    auto session = demoSession();
    QVERIFY(session->comparison);
    OpTableModel model;
    OpFilterProxy proxy;
    CoverageModel coverage;
    QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&coverage, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    model.setSession(session);
    coverage.setSession(session);
    QCOMPARE(model.rowCount(), static_cast<int>(session->comparison->rows.size()));
    // The comparison's coverage, then the timing's (tst_latency_views): a delegate's
    // own timed event that the coverage lists is one item with its time, not two
    // (issue 56: XNNPACK's operator times were each listed twice).
    std::size_t alsoCovered = 0; // occurrence k of a name in one pairs with occurrence k in the other
    std::map<std::string, std::pair<std::size_t, std::size_t>> names;
    for (const auto& u : session->latency->timed_without_numerics)
        ++names[u.name].first;
    for (const auto& c : session->comparison->coverage)
        ++names[c.what].second;
    for (const auto& [name, n] : names)
        alsoCovered += std::min(n.first, n.second);
    QVERIFY(alsoCovered > 0); // the demo's XNNPACK events
    QCOMPARE(coverage.rowCount(), static_cast<int>(session->comparison->coverage.size() +
                                                   session->latency->timed_without_numerics.size() -
                                                   alsoCovered + session->latency->rowsWithoutTime()));
    bool timeShown = false;
    for (int row = 0; row < coverage.rowCount(); ++row)
        timeShown = timeShown || coverage.index(row, CoverageModel::Reason)
                                     .data()
                                     .toString()
                                     .contains(QStringLiteral("median (the Profile tab"));
    QVERIFY(timeShown);
    proxy.sort(OpTableModel::column(Metric::Mse), Qt::DescendingOrder);
    proxy.setText(QStringLiteral("layer"));
    proxy.setThreshold(MetricThreshold{Metric::RelL2, 0.0});
    model.setSession(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void GapscopeGuiTest::sortsOnNumbersAndFilters() {
    auto session = demoSession();
    OpTableModel model;
    OpFilterProxy proxy;
    proxy.setSourceModel(&model);
    model.setSession(session);
    const auto& rows = session->comparison->rows;

    proxy.sort(OpTableModel::column(Metric::Mse), Qt::DescendingOrder);
    double previous = std::numeric_limits<double>::infinity();
    for (int r = 0; r < proxy.rowCount(); ++r) {
        const double v =
            proxy.index(r, OpTableModel::column(Metric::Mse)).data(OpTableModel::SortRole).toDouble();
        QVERIFY(v <= previous);
        previous = v;
    }
    // Sorting is numeric: 1e-15 sorts below 2e-16 as text would not.
    const auto top = proxy.index(0, 0).data(OpTableModel::RowIndexRole).toULongLong();
    double largest = 0;
    for (const auto& r : rows)
        largest = std::max(largest, rowMetric(r, Metric::Mse).value_or(0));
    QCOMPARE(*rowMetric(rows[top], Metric::Mse), largest);

    proxy.setText(QStringLiteral("layer_norm"));
    QCOMPARE(proxy.rowCount(), 1);
    QVERIFY(proxy.index(0, OpTableModel::AotOps).data().toString().contains(QStringLiteral("layer_norm")));
    proxy.setText(QString());

    // "Gap above threshold": as many rows as the core counts.
    const double limit = *rowMetric(rows[top], Metric::Mse) / 2;
    int expected = 0;
    for (const auto& r : rows)
        expected += rowMetric(r, Metric::Mse).value_or(0) > limit ? 1 : 0;
    proxy.setThreshold(MetricThreshold{Metric::Mse, limit});
    QCOMPARE(proxy.rowCount(), expected);
    proxy.setThreshold(std::nullopt);
    QCOMPARE(proxy.rowCount(), static_cast<int>(rows.size()));
}

void GapscopeGuiTest::demoOpensAndSelectionIsLinked() {
    MainWindow window;
    QVERIFY(showDemo(window, QSize(1400, 900)));
    QVERIFY(window.session()->comparison);
    QCOMPARE(window.inspector()->opModel()->rowCount(),
             static_cast<int>(window.session()->comparison->rows.size()));
    QVERIFY(!window.banner()->isVisible());

    // Table → chart and heatmaps.
    const QModelIndex idx = window.inspector()->opProxy()->index(2, 0);
    window.inspector()->opView()->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect |
                                                                             QItemSelectionModel::Rows);
    const auto row = static_cast<std::size_t>(idx.data(OpTableModel::RowIndexRole).toULongLong());
    QCOMPARE(window.inspector()->chart()->selectedRow(), std::optional<std::size_t>(row));
    QCOMPARE(window.inspector()->tensorPanel()->row(), std::optional<std::size_t>(row));
    const auto& ref = window.inspector()->tensorPanel()->values(0);
    const auto& rt = window.inspector()->tensorPanel()->values(1);
    const auto& diff = window.inspector()->tensorPanel()->values(2);
    QVERIFY(!ref.empty());
    QCOMPARE(rt.size(), ref.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
        QCOMPARE(diff[i], ref[i] - rt[i]);
    // Histogram, scatter, per-channel bars and the worst elements follow the selection.
    QCOMPARE(window.inspector()->tensorPanel()->histogram()->plottableCount(), 1);
    QCOMPARE(window.inspector()->tensorPanel()->scatter()->plottableCount(), 1);
    QCOMPARE(window.inspector()->tensorPanel()->channels()->plottableCount(), 1);
    QVERIFY(window.inspector()->tensorPanel()->worstElementsText().startsWith(
        QStringLiteral("Worst elements: [")));

    // Any two axes can be displayed; the others are indexed by the slice box.
    const auto& record = *window.session()->comparison->rows[row].id().pair->aot.record;
    const auto shape = window.session()->capture->tensor(record.outputs.front())->shape;
    QCOMPARE(shape.size(), std::size_t{3});
    window.inspector()->tensorPanel()->setAxes(2, 1);
    QCOMPARE(window.inspector()->tensorPanel()->sliceHeight(), static_cast<int>(shape[2]));
    QCOMPARE(window.inspector()->tensorPanel()->sliceWidth(), static_cast<int>(shape[1]));
    const auto& transposed = window.inspector()->tensorPanel()->values(0);
    const auto* t = window.session()->capture->tensor(record.outputs.front());
    const auto bytes = window.session()->capture->file->bytes(*t);
    // values(0)[y * width + x] is element [0, x, y].
    QCOMPARE(transposed[1 * static_cast<std::size_t>(shape[1]) + 2],
             decodeElement(t->scalar_type, bytes, static_cast<std::uint64_t>(2 * shape[2] + 1)));
    window.inspector()->tensorPanel()->setAxes(1, 2);

    // Chart → table.
    const std::size_t other = window.inspector()->chart()->order().front();
    emit window.inspector()->chart()->rowClicked(other);
    QCOMPARE(window.inspector()->opView()->currentIndex().data(OpTableModel::RowIndexRole).toULongLong(),
             static_cast<qulonglong>(other));
    QCOMPARE(window.inspector()->tensorPanel()->row(), std::optional<std::size_t>(other));

    // The chart as painted marks the selected op, and no longer the one before
    // it: a selection draws the marker's own layer again, not the whole plot.
    QCustomPlot* plot = window.inspector()->chart()->plot();
    const auto& order = window.inspector()->chart()->order();
    const auto markerAt = [&](std::size_t position) {
        const auto point = plot->graph(0)->data()->findBegin(static_cast<double>(position), false);
        if (point == plot->graph(0)->data()->constEnd() || point->key != static_cast<double>(position))
            return false;
        const QImage image = plot->grab().toImage();
        const QPoint at(qRound(plot->xAxis->coordToPixel(point->key)),
                        qRound(plot->yAxis->coordToPixel(point->value)));
        return image.pixelColor(at) == QColor(255, 200, 80); // the marker's fill
    };
    std::vector<std::size_t> plotted; // positions with a point on the line
    for (std::size_t i = 0; i < order.size() && plotted.size() < 2; ++i)
        if (plot->graph(0)->data()->findBegin(static_cast<double>(i), false)->key == static_cast<double>(i))
            plotted.push_back(i);
    QCOMPARE(plotted.size(), std::size_t{2});
    for (const auto& [now, before] : {std::pair{plotted[0], plotted[1]}, std::pair{plotted[1], plotted[0]}}) {
        emit window.inspector()->chart()->rowClicked(order[now]);
        QVERIFY(markerAt(now));
        QVERIFY(!markerAt(before));
    }
}

void GapscopeGuiTest::droppedFilesBuildASession() {
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    // Without the debug buffer: a banner asks for it.
    QTemporaryDir dir;
    dropFiles(window, demoFilesWithoutDebugBuffer(dir));
    QVERIFY(shown.wait(20000));
    QVERIFY(window.banner()->text().contains(QStringLiteral("debug buffer missing")));
    QVERIFY(window.session()->comparison);
    QCOMPARE(window.session()->comparison->rows.front().status, RowStatus::MissingData);
    // Dropping it completes the session.
    dropFiles(window, {demoFiles().at(1)});
    QVERIFY(shown.wait(20000));
    QVERIFY(window.banner()->text().isEmpty());
    QCOMPARE(window.session()->comparison->rows.front().status, RowStatus::Ok);
}

void GapscopeGuiTest::runSelectorRecomparesAnotherRun() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openDemo();
    QVERIFY(shown.wait(20000));
    const auto runs = static_cast<int>(window.session()->dump->runs.size());
    QCOMPARE(window.inspector()->runSelector()->count(), runs);
    QCOMPARE(window.inspector()->runSelector()->currentIndex(),
             static_cast<int>(window.session()->comparison->run));
    // The demo's first run holds only Method::init and Program::load_method.
    const int other = window.session()->comparison->run == 0 ? 1 : 0;
    emit window.inspector()->runSelector()->activated(other);
    QVERIFY(shown.wait(20000));
    QCOMPARE(static_cast<int>(window.session()->comparison->run), other);
    QCOMPARE(window.inspector()->runSelector()->currentIndex(), other);
    QCOMPARE(window.inspector()->opModel()->rowCount(),
             static_cast<int>(window.session()->comparison->rows.size()));
}

// A real two-method program (tests/data/multimethod_portable): the method
// selector appears, lists both methods, and switching compares the other
// method's capture against its own run; a run of the other method switches too.
void GapscopeGuiTest::methodSelectorComparesEachMethodOfAProgram() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/multimethod_portable")});
    QVERIFY(shown.wait(20000));
    QComboBox* methods = window.inspector()->methodSelector();
    QVERIFY(!methods->isHidden());
    QCOMPARE(methods->count(), 2);
    QCOMPARE(methods->currentText(), QStringLiteral("forward"));
    QCOMPARE(window.session()->comparison->run, std::size_t{3});
    QVERIFY(window.inspector()->runSelector()->itemText(1).contains(QStringLiteral("· prefill")));
    QVERIFY(window.inspector()->runSelector()->itemText(3).contains(QStringLiteral("· forward")));
    QVERIFY(window.inspector()->warningBanner()->isHidden());

    emit methods->activated(methods->findText(QStringLiteral("prefill")));
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.session()->comparison->method, std::string("prefill"));
    QCOMPARE(window.session()->capture->method, std::string("prefill"));
    QCOMPARE(window.session()->comparison->run, std::size_t{1});
    QCOMPARE(methods->currentText(), QStringLiteral("prefill"));
    QVERIFY(window.inspector()->warningBanner()->isHidden());

    // Choosing forward's run compares forward again.
    emit window.inspector()->runSelector()->activated(3);
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.session()->comparison->method, std::string("forward"));
    QCOMPARE(window.session()->comparison->run, std::size_t{3});

    // A session file naming a method whose capture is not among its files: the
    // comparison's warning shows above the table.
    QTemporaryDir dir;
    const QString dataDir = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/multimethod_portable/");
    SessionFile file;
    for (const char* name :
         {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.forward.gscap.safetensors"})
        file.files << dataDir + QLatin1String(name);
    file.method = QStringLiteral("prefill");
    const QString sessionPath = dir.filePath(QStringLiteral("wrong.gapscope.json"));
    QVERIFY(writeSessionFile(sessionPath, file).isEmpty());
    QVERIFY(window.openSessionFile(sessionPath));
    QVERIFY(shown.wait(20000));
    QVERIFY(!window.inspector()->warningBanner()->isHidden());
    QVERIFY(window.inspector()->warningBanner()->text().contains(
        QStringLiteral("the capture is of method 'forward' but method 'prefill' is compared")));
    // Its broadcast rows say why their numbers are no gap, and the threshold
    // filter leaves them out.
    int broadcastRow = -1;
    for (int r = 0; r < window.inspector()->opModel()->rowCount() && broadcastRow < 0; ++r)
        if (window.session()->comparison->rows[static_cast<std::size_t>(r)].status == RowStatus::Broadcast)
            broadcastRow = r;
    QVERIFY(broadcastRow >= 0);
    QVERIFY(window.inspector()
                ->opModel()
                ->index(broadcastRow, OpTableModel::column(Metric::Snr))
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("<qt>Broadcast, not element for element")));
    window.inspector()->opProxy()->setThreshold(MetricThreshold{Metric::Snr, 20.0});
    QVERIFY(window.inspector()->opProxy()->rowCount() > 0);
    for (int r = 0; r < window.inspector()->opProxy()->rowCount(); ++r) {
        const auto row =
            window.inspector()->opProxy()->index(r, 0).data(OpTableModel::RowIndexRole).toULongLong();
        QVERIFY(window.session()->comparison->rows[row].status != RowStatus::Broadcast);
    }
    window.inspector()->opProxy()->setThreshold(std::nullopt);
    if (qEnvironmentVariableIsSet("GAPSCOPE_TEST_SHOT"))
        window.grab().save(qEnvironmentVariable("GAPSCOPE_TEST_SHOT"));

    // A single-method session hides the selector.
    window.openDemo();
    QVERIFY(shown.wait(20000));
    QVERIFY(methods->isHidden());
}

void GapscopeGuiTest::sessionsSaveReopenAndAreRemembered() {
    QTemporaryDir dir;
    const QString sessionPath = dir.filePath(QStringLiteral("s.gapscope.json"));
    std::size_t rows = 0;
    {
        MainWindow window;
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.openPaths(demoFiles());
        QVERIFY(shown.wait(20000));
        rows = window.session()->comparison->rows.size();
        QCOMPARE(AppSettings().recentSessions().front(), demoFiles());
        QVERIFY(window.saveSession(sessionPath));
        // The saved file replaces its files in the recent list, on the welcome page too.
        QCOMPARE(AppSettings().recentSessions().front(), QStringList{sessionPath});
        QVERIFY(!AppSettings().recentSessions().contains(demoFiles()));
        QCOMPARE(window.welcomePage()->recentList()->item(0)->toolTip(), sessionPath);
        QCOMPARE(window.windowTitle(), QStringLiteral("s — Gapscope")); // named without the extension
    }
    MainWindow reopened;
    QSignalSpy shown(&reopened, &MainWindow::sessionShown);
    dropFiles(reopened, {sessionPath});
    QVERIFY(shown.wait(20000));
    QCOMPARE(reopened.session()->comparison->rows.size(), rows);

    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"files\": []}");
    bad.close();
    QVERIFY(!reopened.openSessionFile(bad.fileName()));
    QVERIFY(reopened.banner()->text().contains(QStringLiteral("not a Gapscope session file")));
}

void GapscopeGuiTest::aNewerLoadSupersedesAnOlderOne() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    // The demo load starts first, the partial session second: only the second shows.
    window.openDemo();
    QTemporaryDir dir;
    window.openPaths(demoFilesWithoutDebugBuffer(dir));
    QVERIFY(shown.wait(20000));
    // Once both jobs have returned, whatever the superseded one delivers is posted:
    // handled here, it must be dropped.
    QTRY_COMPARE_WITH_TIMEOUT(window.loader()->jobsRunning(), 0, 20000);
    QCoreApplication::processEvents();
    QCOMPARE(shown.count(), 1);
    QVERIFY(window.banner()->text().contains(QStringLiteral("debug buffer missing")));
}

// Issue 29: an op selected before its row is measured would be read for NaNs
// whole on the UI thread (30 ms for 4M elements). A big one waits for its
// metrics instead, and is drawn, as from the final session, once they arrive;
// or at once when measuring stops.
void GapscopeGuiTest::aBigUnmeasuredTensorWaitsForItsMetrics() {
    QTemporaryDir dir;
    makeSession(dir.path(), 4, 65536);
    std::vector<Error> errors;
    const auto inputs = [&] { return sessionInputsFromPaths({dir.path().toStdString()}, errors); };
    StagedSession staged = openSession(inputs());
    QVERIFY(staged.session && staged.session->comparison && !staged.session->complete);
    std::shared_ptr<const Session> unmeasured = std::move(staged.session);
    QVERIFY(!unmeasured->comparison->rows[1].measured);
    const std::shared_ptr<const Session> final = loadSession(inputs());
    QVERIFY(final && final->complete && final->comparison->rows[1].measured);

    TensorPanel expected;
    expected.setSession(final);
    expected.setRow(std::size_t{1});
    QVERIFY(!expected.awaitingMetrics() && !expected.values(0).empty());

    TensorPanel panel;
    panel.setSession(unmeasured);
    panel.setRow(std::size_t{1});
    QVERIFY(panel.awaitingMetrics());
    QVERIFY(panel.values(0).empty() && !panel.mapShown(0));
    panel.updateSession(unmeasured); // still no metrics: still waiting
    QVERIFY(panel.awaitingMetrics());
    panel.updateSession(final);
    QVERIFY(!panel.awaitingMetrics());
    for (int which = 0; which < 3; ++which)
        QCOMPARE(panel.values(which), expected.values(which));

    TensorPanel stopped;
    stopped.setSession(unmeasured);
    stopped.setRow(std::size_t{1});
    QVERIFY(stopped.awaitingMetrics());
    stopped.measuringStopped();
    QVERIFY(!stopped.awaitingMetrics());
    QCOMPARE(stopped.values(0), expected.values(0));

    TensorPanel closed; // the session closed while the op waited: nothing to draw
    closed.setSession(unmeasured);
    closed.setRow(std::size_t{1});
    QVERIFY(closed.awaitingMetrics());
    closed.updateSession(nullptr);
    QVERIFY(!closed.awaitingMetrics() && closed.values(0).empty());
}

// An op with nothing compared, selected after one that was: the histogram,
// scatter and per-channel plots are cleared on screen too, not left showing
// the op before under the new op's title (seen on ExecuTorch's example Llama,
// whose RoPE rows end in an unbind and compare nothing).
void GapscopeGuiTest::anOpWithNothingComparedClearsTheDetailPlots() {
    std::vector<Error> errors;
    const std::shared_ptr<const Session> session =
        loadSession(sessionInputsFromPaths({GAPSCOPE_TEST_DATA_DIR "/portable_recurrent"}, errors));
    QVERIFY(session && session->comparison && session->complete);
    const auto& rows = session->comparison->rows;
    const auto first = [&](RowStatus status) {
        return std::find_if(rows.begin(), rows.end(),
                            [&](const ComparisonRow& r) { return r.status == status; }) -
               rows.begin();
    };
    const auto compared = static_cast<std::size_t>(first(RowStatus::Ok));
    const auto nothing = static_cast<std::size_t>(first(RowStatus::Invalid));
    QVERIFY(compared < rows.size() && nothing < rows.size());

    TensorPanel panel;
    panel.resize(1200, 300);
    panel.show();
    panel.setSession(session);
    panel.setRow(compared);
    QTRY_VERIFY(panel.histogram()->plottableCount() > 0); // the breakdown, drawn off the UI thread
    QCustomPlot* const plots[] = {panel.histogram(), panel.scatter(), panel.channels()};
    std::vector<std::unique_ptr<QSignalSpy>> replotted;
    for (QCustomPlot* p : plots)
        replotted.push_back(std::make_unique<QSignalSpy>(p, &QCustomPlot::afterReplot));
    panel.setRow(nothing);
    for (std::size_t i = 0; i < replotted.size(); ++i) {
        QCOMPARE(plots[i]->plottableCount(), 0);
        QVERIFY2(replotted[i]->count() > 0, "a detail plot still shows the op selected before");
    }
}

void GapscopeGuiTest::resultsArriveInStages() {
    QTemporaryDir dir;
    makeSession(dir.path(), 300, 32768); // crosses 20 dB near the end; several batches of rows
    MainWindow window;
    window.show();
    window.loader()->setSnapshotInterval(0); // every batch a snapshot, however fast the machine
    // The models must stay consistent while rows change under a sorted proxy.
    QAbstractItemModelTester t1(window.inspector()->opModel(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(window.inspector()->opProxy(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QStringList stages;
    int rowsAtTable = -1, pendingAtTable = -1;
    bool completeAtTable = true;
    std::shared_ptr<const Session> tableSnapshot;
    connect(window.loader(), &SessionLoader::opened, this, [&](std::shared_ptr<const Session> s) {
        tableSnapshot = s;
        stages << QStringLiteral("table");
        rowsAtTable = window.inspector()->opModel()->rowCount();
        pendingAtTable = pendingMetricCells(*window.inspector()->opModel());
        completeAtTable = s->complete;
        // The user sorts on MSE while the numbers stream in.
        window.inspector()->opView()->sortByColumn(OpTableModel::column(Metric::Mse), Qt::DescendingOrder);
    });
    int batches = 0;
    connect(window.loader(), &SessionLoader::measured, this, [&] {
        ++batches;
        if (stages.isEmpty() || stages.back() != QStringLiteral("metrics"))
            stages << QStringLiteral("metrics");
    });
    connect(window.loader(), &SessionLoader::completed, this, [&] { stages << QStringLiteral("findings"); });
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({dir.path()});
    QVERIFY(shown.wait(60000));
    QCOMPARE(stages,
             (QStringList{QStringLiteral("table"), QStringLiteral("metrics"), QStringLiteral("findings")}));
    // The table came first, whole, with no metric yet.
    QCOMPARE(rowsAtTable, 300);
    QCOMPARE(pendingAtTable, 300);
    QVERIFY(!completeAtTable);
    QVERIFY2(batches > 1, "rows arrive in several batches, not all at once");
    // Each stage was a new snapshot: the one the table was first shown from never
    // changed underneath it, while the window now holds the final one.
    QVERIFY(tableSnapshot && window.session() != tableSnapshot);
    QVERIFY(!tableSnapshot->complete);
    for (const auto& row : tableSnapshot->comparison->rows)
        QVERIFY(!row.measured && row.gaps.empty());
    // Then every number, equal to a one-shot load of the same files by the core.
    QCOMPARE(pendingMetricCells(*window.inspector()->opModel()), 0);
    std::vector<Error> errors;
    const auto oneShot = loadSession(sessionInputsFromPaths({dir.path().toStdString()}, errors));
    const auto& rows = window.session()->comparison->rows;
    QCOMPARE(rows.size(), oneShot->comparison->rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        QCOMPARE(rowMetric(rows[i], Metric::Mse), rowMetric(oneShot->comparison->rows[i], Metric::Mse));
    QVERIFY(window.session()->first_divergence);
    QCOMPARE(window.session()->first_divergence->row, oneShot->first_divergence->row);
    // The findings selected the first divergence; the proxy stayed sorted as rows changed.
    QCOMPARE(window.inspector()->chart()->selectedRow(),
             std::optional<std::size_t>(oneShot->first_divergence->row));
    for (int r = 1; r < window.inspector()->opProxy()->rowCount(); ++r)
        QVERIFY(window.inspector()
                    ->opProxy()
                    ->index(r - 1, OpTableModel::column(Metric::Mse))
                    .data(OpTableModel::SortRole)
                    .toDouble() >= window.inspector()
                                       ->opProxy()
                                       ->index(r, OpTableModel::column(Metric::Mse))
                                       .data(OpTableModel::SortRole)
                                       .toDouble());
    // The op the generator made jump (a 200x error step at op 100) is where the error
    // grows most, found without an ETRecord (execution order stands in for the graph).
    const auto top = window.inspector()->opModel()->topIntroducer();
    QVERIFY(top);
    QCOMPARE(rows[*top].id().aot_ops, std::vector<std::string>{"linear_100"});
    QVERIFY(window.inspector()
                ->opModel()
                ->index(static_cast<int>(*top), OpTableModel::Index)
                .data()
                .toString()
                .contains(QStringLiteral("▲")));
    window.inspector()->opView()->sortByColumn(OpTableModel::column(OpTableModel::Tail::Gain),
                                               Qt::DescendingOrder);
    QCOMPARE(window.inspector()->opProxy()->index(0, 0).data(OpTableModel::RowIndexRole).toULongLong(),
             static_cast<qulonglong>(*top));
    // The Added column ranks the error introducers as the JSON report does (issue 30:
    // the ranking was only in the JSON).
    window.inspector()->opView()->sortByColumn(OpTableModel::column(OpTableModel::Tail::Added),
                                               Qt::DescendingOrder);
    const auto& introducers = window.session()->introducers;
    QVERIFY(!introducers.empty());
    QCOMPARE(window.inspector()->opProxy()->index(0, 0).data(OpTableModel::RowIndexRole).toULongLong(),
             static_cast<qulonglong>(introducers.front().row));
    QCOMPARE(window.inspector()
                 ->opModel()
                 ->headerData(OpTableModel::column(OpTableModel::Tail::Added), Qt::Horizontal)
                 .toString(),
             QStringLiteral("Added"));
}

void GapscopeGuiTest::cancellingWhileMeasuringKeepsTheTable() {
    QTemporaryDir dir;
    makeSession(dir.path(), 120, 16384);
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    QSignalSpy measured(window.loader(), &SessionLoader::measured);
    connect(
        window.loader(), &SessionLoader::opened, this, [&] { window.cancelButton()->click(); },
        Qt::SingleShotConnection);
    window.openPaths({dir.path()});
    QTRY_COMPARE_WITH_TIMEOUT(window.inspector()->opModel()->rowCount(), 120, 30000);
    // The cancelled job has returned: every batch it measured is posted, and
    // handled here, none may be applied.
    QTRY_COMPARE_WITH_TIMEOUT(window.loader()->jobsRunning(), 0, 30000);
    QCoreApplication::processEvents();
    QCOMPARE(shown.count(), 0);
    QCOMPARE(measured.count(), 0);
    QVERIFY(!window.loader()->busy());
    QCOMPARE(pendingMetricCells(*window.inspector()->opModel()), 120);
    QCOMPARE(window.inspector()
                 ->opModel()
                 ->index(0, OpTableModel::column(OpTableModel::Tail::Status))
                 .data()
                 .toString(),
             QStringLiteral("not computed"));
    QTemporaryDir out;
    QVERIFY(!window.exportCsv(out.filePath(QStringLiteral("partial.csv")))); // no half-measured report
    // A reload computes them.
    window.openPaths({dir.path()});
    QVERIFY(shown.wait(60000));
    QCOMPARE(pendingMetricCells(*window.inspector()->opModel()), 0);
}

void GapscopeGuiTest::bigTensorDetailsArriveWithoutBlocking() {
    QTemporaryDir dir;
    // Two ops of 724 x 724 float32: past the synchronous limit of the tensor panel.
    QProcess make;
    make.start(QStringLiteral(GAPSCOPE_MAKE_SESSION),
               {dir.path(), QStringLiteral("2"), QStringLiteral("524176")});
    QVERIFY(make.waitForFinished(60000));
    QCOMPARE(make.exitCode(), 0);
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({dir.path()});
    QVERIFY(shown.wait(30000));
    QCOMPARE(window.session()->comparison->rows.size(), std::size_t{2});
    // The heatmaps are downsampled to at most 256 cells a side.
    QVERIFY(window.inspector()->tensorPanel()->sliceWidth() <= TensorPanel::kMaxSide);
    // Downsampled axes still count the tensor's elements, and so does the hover readout.
    QCustomPlot* heat = window.inspector()->tensorPanel()->plot(0);
    QVERIFY(heat->xAxis->range().upper > 720);
    const QPointF at(heat->xAxis->coordToPixel(600), heat->yAxis->coordToPixel(300));
    QMouseEvent move(QEvent::MouseMove, at, heat->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    QCoreApplication::sendEvent(heat, &move);
    const auto hover =
        // The full N-D index: the displayed axes are the last two.
        QRegularExpression(QStringLiteral("^\\[(?:\\d+, )*(\\d+), (\\d+)\\]"))
            .match(window.inspector()->tensorPanel()->hoverText());
    QVERIFY2(hover.hasMatch(), qPrintable(window.inspector()->tensorPanel()->hoverText()));
    QVERIFY(std::abs(hover.captured(1).toInt() - 300) <= 3);
    QVERIFY(std::abs(hover.captured(2).toInt() - 600) <= 3);
    QVERIFY(
        window.inspector()->tensorPanel()->worstElementsText().startsWith(QStringLiteral("Computing")) ||
        window.inspector()->tensorPanel()->worstElementsText().startsWith(QStringLiteral("Worst elements")));
    QTRY_VERIFY_WITH_TIMEOUT(
        window.inspector()->tensorPanel()->worstElementsText().startsWith(QStringLiteral("Worst elements")),
        30000);
    QCOMPARE(window.inspector()->tensorPanel()->channels()->plottableCount(), 1);
}

void GapscopeGuiTest::layoutIsRemembered() {
    QByteArray splitter;
    {
        MainWindow window;
        QVERIFY(showDemo(window, QSize(1200, 800)));
        auto* s = window.findChild<QSplitter*>(QStringLiteral("viewsAndChart"));
        QVERIFY(s);
        s->setSizes({500, 250});
        window.inspector()->opView()->setColumnWidth(OpTableModel::column(Metric::Mse), 171);
        splitter = s->saveState();
    } // closing saves the layout
    MainWindow again;
    QCOMPARE(again.findChild<QSplitter*>(QStringLiteral("viewsAndChart"))->saveState(), splitter);
    QSignalSpy shown(&again, &MainWindow::sessionShown);
    again.openDemo();
    QVERIFY(shown.wait(20000));
    QCOMPARE(again.inspector()->opView()->columnWidth(OpTableModel::column(Metric::Mse)), 171);

    // A header saved for another set of columns (an older Gapscope) is not applied.
    AppSettings().setTableHeaderState(again.inspector()->opView()->horizontalHeader()->saveState(),
                                      OpTableModel::columns() - 1);
    MainWindow older;
    QSignalSpy shownOlder(&older, &MainWindow::sessionShown);
    older.openDemo();
    QVERIFY(shownOlder.wait(20000));
    QVERIFY(older.inspector()->opView()->columnWidth(OpTableModel::column(Metric::Mse)) != 171);
}

void GapscopeGuiTest::bogusFileRaisesTheBanner() {
    QTemporaryDir dir;
    const QString bogus = dir.filePath(QStringLiteral("bogus.etdp"));
    QFile source(demoFiles().at(0));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QFile out(bogus);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(source.read(100)); // a truncated ETDump
    out.close();
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({bogus});
    QVERIFY(shown.wait(20000));
    QVERIFY(window.banner()->text().contains(QStringLiteral("bogus.etdp: truncated")));
    QVERIFY(!window.session()->comparison);
}

void GapscopeGuiTest::exportsCsvAndScreenshot() {
    QTemporaryDir dir;
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths(demoFiles());
    QVERIFY(shown.wait(20000));
    const QString csv = dir.filePath(QStringLiteral("ops.csv"));
    QVERIFY(window.exportCsv(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto lines = QString::fromUtf8(f.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), static_cast<int>(window.session()->comparison->rows.size()) + 1);
    QVERIFY(lines.front().startsWith(QStringLiteral("index,aot_debug_handle,aot_ops")));

    const QString report = dir.filePath(QStringLiteral("report"));
    window.inspector()->selectRow(std::size_t{1});
    const auto selected = window.inspector()->tensorPanel()->row();
    const auto snapshot = window.session();
    ReportExporter exporter(window.session(), window.inspector()->chart()->metric(), report, 2);
    QSignalSpy exported(&exporter, &ReportExporter::finished);
    exporter.start();
    QVERIFY(exported.wait(30000));
    QCOMPARE(exported.takeFirst().at(0).toString(), QString());
    {
        // An export abandoned mid-way (its window closed while the inputs hash):
        // the hashing is cancelled and waited for, and nothing arrives after.
        auto early = std::make_unique<ReportExporter>(window.session(), window.inspector()->chart()->metric(),
                                                      dir.filePath(QStringLiteral("abandoned")), 2);
        QSignalSpy ended(early.get(), &ReportExporter::finished);
        early->start();
        early.reset();
        QCoreApplication::processEvents();
        QCOMPARE(ended.count(), 0);
    }
    // Rendered off-screen from the snapshot: the window kept its selection and session.
    QCOMPARE(window.inspector()->tensorPanel()->row(), selected);
    QCOMPARE(window.inspector()->chart()->selectedRow(), selected);
    QCOMPARE(window.session(), snapshot);
    for (const auto& name : QDir(report).entryList({QStringLiteral("op-*.png")})) {
        const QImage figure(QDir(report).filePath(name));
        QCOMPARE(figure.size(), QSize(3 * 420, 28 + 2 * 300 + 24)); // the six plots, no controls
    }
    for (const char* name : {"gapscope.csv", "report.json", "gap-chart.png", "time-vs-gap.png", "index.html"})
        QVERIFY2(QFile::exists(QDir(report).filePath(QString::fromLatin1(name))), name);
    QCOMPARE(QDir(report).entryList({QStringLiteral("op-*.png")}).size(), 2);
    QVERIFY(!QImage(QDir(report).filePath(QStringLiteral("gap-chart.png"))).isNull());
    QFile index(QDir(report).filePath(QStringLiteral("index.html")));
    QVERIFY(index.open(QIODevice::ReadOnly));
    // Self-contained: the chart's own PNG bytes are inline, and nothing is linked.
    const QByteArray page = index.readAll();
    QFile chartPng(QDir(report).filePath(QStringLiteral("gap-chart.png")));
    QVERIFY(chartPng.open(QIODevice::ReadOnly));
    QVERIFY(page.contains(QByteArray("data:image/png;base64,").append(chartPng.readAll().toBase64())));
    // The gap chart, time against gap (the demo's ETDump is timed) and the two worst ops.
    QCOMPARE(page.count("data:image/png;base64,"), 4);
    QVERIFY(page.contains("<th data-worse=desc>time ms</th>"));
    QVERIFY(!page.contains("src=\"op-") && !page.contains("href=\"gapscope.csv"));

    const QString png = dir.filePath(QStringLiteral("window.png"));
    bool done = false, ok = false;
    window.screenshotWhenLoaded(png, [&](bool result) {
        done = true;
        ok = result;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY(ok);
    QImage image(png);
    QCOMPARE(image.size(), window.size());
}

void GapscopeGuiTest::everyPlotSavesAsPngPdfAndSvg() {
    MainWindow window;
    QVERIFY(showDemo(window, QSize(1400, 1000)));
    const auto plots = window.findChildren<QCustomPlot*>();
    // Gap chart, time against gap, three heatmaps, histogram, scatter, per
    // channel; A/B's chart and its four heatmaps; two of steps.
    QCOMPARE(plots.size(), 15);
    QTemporaryDir dir;
    for (int i = 0; i < plots.size(); ++i) {
        QCOMPARE(plots[i]->contextMenuPolicy(), Qt::CustomContextMenu); // the save menu
        const QString base = dir.filePath(QStringLiteral("plot%1").arg(i));
        QCOMPARE(savePlot(plots[i], base + QStringLiteral(".png")), QString());
        QCOMPARE(savePlot(plots[i], base + QStringLiteral(".pdf")), QString());
        QCOMPARE(savePlot(plots[i], base + QStringLiteral(".svg")), QString());
        const QImage png(base + QStringLiteral(".png"));
        QCOMPARE(png.size(), plotExportSize(plots[i]));
        QVERIFY(png.width() >= 1200 && png.height() >= 400); // never the on-screen strip
        QVERIFY(std::abs(double(png.width()) / plots[i]->width() * plots[i]->height() - png.height()) <= 1 ||
                png.height() == 400);
        QFile pdf(base + QStringLiteral(".pdf"));
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(pdf.size() > 1000);
        QSvgRenderer svg(base + QStringLiteral(".svg"));
        QVERIFY(svg.isValid());
        QCOMPARE(svg.viewBox().size(), plotExportSize(plots[i]));
    }
    // The gap chart's SVG holds the ops' names as text, not pixels.
    QFile chartSvg(
        dir.filePath(QStringLiteral("plot%1.svg").arg(plots.indexOf(window.inspector()->chart()->plot()))));
    QVERIFY(chartSvg.open(QIODevice::ReadOnly));
    QVERIFY(chartSvg.readAll().contains("layer_norm"));
    // Three files per plot: no temporary left behind.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), plots.size() * 3);
    QVERIFY(savePlot(plots[0], dir.filePath(QStringLiteral("no/such/dir/x.svg")))
                .contains(QStringLiteral("no/such/dir")));
}

// The QNN demo's first conv, made per-channel: its device tensor is uint8 NHWC
// (1x16x16x16, the same shape as the NCHW reference), dequantised with a
// different scale per channel. What the panel shows over every slice must be
// what the metrics compared: the mean of its squared differences is the row's MSE,
// and each runtime value is the device byte at the NHWC position, dequantised with
// its channel's parameters.
void GapscopeGuiTest::qnnPanelShowsWhatTheMetricsCompared() {
    std::vector<Error> errors;
    std::vector<std::string> paths;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors"})
        paths.push_back(std::string(GAPSCOPE_QNN_DEMO_DIR) + "/" + name);
    std::unique_ptr<Session> session = loadSession(sessionInputsFromPaths(paths, errors));
    QVERIFY(errors.empty());
    QVERIFY(session->comparison);
    const std::vector<std::int64_t> handle{25};
    // The session's capture is shared and immutable: the test edits a copy.
    auto capture = std::make_shared<AotCapture>(*session->capture);
    CaptureRecord* conv = nullptr;
    for (auto& r : capture->records)
        if (r.debug_handle == handle)
            conv = &r;
    QVERIFY(conv && conv->quantization.size() == 1 && conv->quantization[0]);
    QCOMPARE(*conv->axis_order, (std::vector<std::int64_t>{0, 2, 3, 1}));
    QuantParams perChannel = *conv->quantization[0];
    perChannel.per_channel = true;
    perChannel.axis = 1;
    const double scale = perChannel.scale.front();
    const std::int64_t zero = perChannel.zero_point.front();
    perChannel.scale.clear();
    perChannel.zero_point.clear();
    for (int c = 0; c < 16; ++c) {
        perChannel.scale.push_back(scale * (1.0 + 0.05 * c));
        perChannel.zero_point.push_back(zero - c % 3);
    }
    conv->quantization[0] = perChannel;
    session->capture = capture;
    auto recompared = compareSession(*session->dump, session->etrecord.get(), *capture);
    QVERIFY(recompared);
    session->comparison = std::move(recompared.value());

    std::size_t index = 0;
    while (index < session->comparison->rows.size() &&
           session->comparison->rows[index].id().aot_debug_handle != handle)
        ++index;
    QVERIFY(index < session->comparison->rows.size());
    const ComparisonRow& row = session->comparison->rows[index];
    QCOMPARE(row.status, RowStatus::Ok);
    QVERIFY(row.elementPlans().front().options.runtime_transform.axis.has_value());
    const Tensor& device = *row.id().pair->runtime_value.tensor;
    QCOMPARE(device.sizes, (std::vector<std::int64_t>{1, 16, 16, 16}));
    const ByteSpan bytes = session->dump->tensorBytes(device);

    std::shared_ptr<const Session> shared(std::move(session));
    TensorPanel panel;
    panel.setSession(shared);
    panel.setRow(index);
    QCOMPARE(panel.sliceCount(), 16); // N x C, the heatmaps showing H x W
    double squares = 0;
    std::size_t count = 0;
    for (int c = 0; c < panel.sliceCount(); ++c) {
        panel.setSlice(c);
        const auto& diff = panel.values(2);
        const auto& runtime = panel.values(1);
        const auto& raw = panel.rawValues();
        QCOMPARE(diff.size(), std::size_t{256});
        QCOMPARE(raw.size(), diff.size());
        for (std::size_t i = 0; i < diff.size(); ++i) {
            squares += diff[i] * diff[i];
            ++count;
            const std::size_t y = i / 16, x = i % 16;
            const double stored =
                decodeElement(ScalarType::Byte, bytes, (y * 16 + x) * 16 + static_cast<std::size_t>(c));
            QCOMPARE(raw[i], stored);
            QCOMPARE(runtime[i], (stored - static_cast<double>(zero - c % 3)) * scale * (1.0 + 0.05 * c));
        }
    }
    QCOMPARE(count, std::size_t{4096});
    const double mse = row.gaps.front().mse;
    const double shown = squares / static_cast<double>(count);
    QVERIFY2(
        std::fabs(shown - mse) <= 1e-12 * mse,
        qPrintable(QStringLiteral("panel %1 against row %2").arg(shown, 0, 'g', 17).arg(mse, 0, 'g', 17)));
    QVERIFY(!panel.worstElementsText().isEmpty());
}

// Issue 58: ExecuTorch's intermediate-output tap. The table in row order lists
// each tap under its delegate's outputs, marked ↳, with what it is in its
// tooltip; a STATS tap's numbers say they are bounds (≤ an SNR, ≥ an error).
void GapscopeGuiTest::tapsListUnderTheirDelegateWithTheirBounds() {
    const auto session = tapFixture("float");
    QVERIFY(session->comparison);
    OpTableModel model;
    OpFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setSortRole(OpTableModel::SortRole);
    model.setSession(session);
    proxy.sort(OpTableModel::Index, Qt::AscendingOrder);
    const auto& rows = session->comparison->rows;
    int taps = 0, bounds = 0;
    std::optional<std::size_t> lastDelegateRow;
    for (int i = 0; i < proxy.rowCount(); ++i) {
        const auto row = proxy.data(proxy.index(i, 0), OpTableModel::RowIndexRole).toULongLong();
        const ComparisonRow& r = rows[row];
        const QString ops = proxy.data(proxy.index(i, OpTableModel::AotOps)).toString();
        if (!r.tap) {
            QVERIFY(!ops.startsWith(QStringLiteral("↳")));
            if (r.id().runtime_ops.front() == "DELEGATE_CALL")
                lastDelegateRow = static_cast<std::size_t>(i);
            continue;
        }
        ++taps;
        // Under the delegate: every delegate output row is listed before it.
        QVERIFY(lastDelegateRow);
        QCOMPARE(*lastDelegateRow, static_cast<std::size_t>(5));
        QCOMPARE(ops, QStringLiteral("↳ ") + QString::fromStdString(r.tap->spec.node_name));
        const QString tip = proxy.data(proxy.index(i, OpTableModel::AotOps), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("Inside the delegate of row")), qPrintable(tip));
        const QString snr = proxy.data(proxy.index(i, OpTableModel::column(Metric::Snr))).toString();
        const QString mse = proxy.data(proxy.index(i, OpTableModel::column(Metric::Mse))).toString();
        if (r.bounds) {
            ++bounds;
            QVERIFY2(snr.startsWith(QStringLiteral("≤ ")), qPrintable(snr));
            QVERIFY2(mse.startsWith(QStringLiteral("≥ ")), qPrintable(mse));
            QVERIFY(tip.contains(QStringLiteral("bounds, not measurements")));
        } else {
            QVERIFY2(!snr.startsWith(QStringLiteral("≤")), qPrintable(snr));
        }
    }
    QCOMPARE(taps, 8);
    QCOMPARE(bounds, 4);
}

void GapscopeGuiTest::productionCheckRunsOffTheUiThreadAndSaysItsVerdict() {
    const auto session = tapFixture("capture");
    const std::string dir = kTapFixture;
    QVERIFY(session->comparison);
    QWidget window;
    ProductionChecker checker(&window);
    QSignalSpy checked(&checker, &ProductionChecker::checked);
    // The build against itself: the same partitions, the same outputs.
    checker.check(session, QString::fromStdString(dir));
    QVERIFY(checked.wait(20000));
    QCOMPARE(checked.front().at(0).toString(), QStringLiteral("The tapped build is the production build"));
    QVERIFY(checked.front().at(1).toString().startsWith(QStringLiteral("same partitions")));
    QVERIFY(checked.front().at(2).toString().contains(QStringLiteral("output 0: identical")));
    // A folder without an ETRecord: the reason, located.
    QTemporaryDir empty;
    checker.check(session, empty.path());
    QVERIFY(checked.wait(20000));
    QCOMPARE(checked.back().at(0).toString(), QStringLiteral("Could not check against the production build"));
    QVERIFY(checked.back().at(1).toString().contains(empty.path()));
    for (auto* box : window.findChildren<QMessageBox*>(QStringLiteral("productionCheck")))
        box->close();
}

void GapscopeGuiTest::statsTapShowsItsFieldsAndItsBoundsStandApart() {
    const auto session = tapFixture("float");
    QVERIFY(session->comparison);
    const auto& rows = session->comparison->rows;
    std::optional<std::size_t> stats, whole;
    std::size_t bounds = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].tap && rows[i].tap->fields && !stats)
            stats = i;
        if (rows[i].tap && !rows[i].tap->fields && !whole)
            whole = i;
        bounds += rows[i].bounds;
    }
    QVERIFY(stats && whole && bounds > 0);
    // The tensor panel: a STATS tap's fields as a table, a whole tensor's plots.
    TensorPanel panel;
    QAbstractItemModelTester tester(panel.fieldsModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.setSession(session);
    panel.setRow(*stats);
    QVERIFY(panel.showsFields());
    const TapFields& f = *rows[*stats].tap->fields;
    QCOMPARE(panel.fieldsModel()->rowCount(), static_cast<int>(f.names.size()));
    for (int k = 0; k < panel.fieldsModel()->rowCount(); ++k) {
        QCOMPARE(panel.fieldsModel()->index(k, TapFieldsModel::Field).data().toString(),
                 QString::fromStdString(f.names[std::size_t(k)]));
        QCOMPARE(panel.fieldsModel()->index(k, TapFieldsModel::Device).data(kCopyTextRole).toDouble(),
                 f.runtime[std::size_t(k)]);
        QCOMPARE(panel.fieldsModel()
                     ->index(k, TapFieldsModel::Reference)
                     .data(TapFieldsModel::SortRole)
                     .toDouble(),
                 f.reference[std::size_t(k)]);
    }
    panel.setRow(*whole);
    QVERIFY(!panel.showsFields());
    QCOMPARE(panel.fieldsModel()->rowCount(), 0);
    // The gap chart: every bound on a graph of its own, none on the line.
    GapChart chart;
    chart.setSession(session);
    chart.setMetric(Metric::RelL2);
    QCPGraph* line = chart.plot()->graph(0);
    std::size_t onLine = 0, apart = 0;
    for (std::size_t pos = 0; pos < chart.order().size(); ++pos) {
        const bool bound = rows[chart.order()[pos]].bounds;
        bool found = false;
        for (auto p = line->data()->constBegin(); p != line->data()->constEnd(); ++p)
            found = found || p->key == double(pos);
        if (bound) {
            QVERIFY(!found);
            ++apart;
        } else if (found) {
            ++onLine;
        }
    }
    QCOMPARE(apart, bounds);
    QVERIFY(onLine > 0);
    bool legend = false;
    for (int g = 0; g < chart.plot()->graphCount(); ++g)
        legend = legend || chart.plot()->graph(g)->name().contains(QStringLiteral("STATS tap"));
    QVERIFY(legend);
    // The selected bound is marked where it is drawn.
    chart.setSelectedRow(*stats);
    bool marked = false;
    for (int g = 0; g < chart.plot()->graphCount(); ++g)
        if (chart.plot()->graph(g)->layer()->name() == QStringLiteral("overlay"))
            marked = marked || !chart.plot()->graph(g)->data()->isEmpty();
    QVERIFY(marked);
}

QTEST_MAIN(GapscopeGuiTest)
#include "tst_gapscope_gui.moc"

// Issue 59: a folder with two references of one run (the tap fixture's quantised
// simulation and float model) gets its stage ladder off the UI thread: the
// Stages tab shows core's numbers, the op table's "Lost most at" column appears,
// the gap chart draws a curve per stage on SNR, and an op chosen in the ladder
// is the op shown everywhere.
void GapscopeGuiTest::stageLadderFillsItsTabTheLostColumnAndTheChart() {
    MainWindow window;
    QSignalSpy ready(window.ladder(), &LadderController::ready);
    window.openPaths({QString::fromStdString(kTapFixture)});
    QVERIFY(ready.wait(30000));
    const auto ladder = ready.front().at(0).value<std::shared_ptr<const StageLadder>>();
    QVERIFY(ladder);
    QCOMPARE(ladder->stages, (std::vector<LadderStage>{LadderStage::FloatModel, LadderStage::QuantAten,
                                                       LadderStage::Device}));
    auto* view = window.inspector()->ladderView();
    StageLadderModel* model = view->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), static_cast<int>(ladder->rows.size()));
    QCOMPARE(model->columnCount(), 2 + static_cast<int>(ladder->step_labels.size()) + 1);
    for (int r = 0; r < model->rowCount(); ++r) {
        const LadderRow& row = ladder->rows[std::size_t(r)];
        QCOMPARE(model->index(r, 0).data().toString(), QString::fromStdString(row.name));
        for (std::size_t s = 0; s < row.steps.size(); ++s)
            QCOMPARE(model->index(r, int(s) + 1).data().toString(), ladderCellText(row.steps[s]));
        QCOMPARE(model->index(r, model->lostMostColumn()).data().toString(),
                 row.worst_step ? QString::fromStdString(ladder->step_labels[*row.worst_step])
                                : QStringLiteral("—"));
    }
    // The op table's column, for the ops quantisation loses the most on.
    const int lost = OpTableModel::column(OpTableModel::Tail::LostMost);
    QVERIFY(!window.inspector()->opView()->isColumnHidden(lost));
    int named = 0;
    for (int r = 0; r < window.inspector()->opModel()->rowCount(); ++r)
        named += window.inspector()->opModel()->index(r, lost).data().toString().startsWith(
            QStringLiteral("quantisation ("));
    QVERIFY(named > 3);
    // The chart: a curve per stage on SNR, none on another metric.
    const auto ladderCurves = [&] {
        int curves = 0;
        for (int g = 0; g < window.inspector()->chart()->plot()->graphCount(); ++g)
            curves += window.inspector()->chart()->plot()->graph(g)->property("ladder").toBool();
        return curves;
    };
    window.inspector()->chart()->setMetric(Metric::Snr);
    QCOMPARE(ladderCurves(), 2); // the simulation and the device, each against the float model
    window.inspector()->chart()->setMetric(Metric::RelL2);
    QCOMPARE(ladderCurves(), 0);
    // An op chosen in the ladder is the op shown.
    window.inspector()->showTab(InspectorView::StagesTab);
    int pick = -1;
    for (int r = 0; r < model->rowCount() && pick < 0; ++r)
        if (!ladder->rows[std::size_t(r)].output && ladder->rows[std::size_t(r)].row > 2)
            pick = r;
    QVERIFY(pick >= 0);
    auto* table = view->table();
    table->selectionModel()->setCurrentIndex(
        static_cast<QSortFilterProxyModel*>(table->model())->mapFromSource(model->index(pick, 0)),
        QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(window.inspector()->chart()->selectedRow(),
             std::optional<std::size_t>(ladder->rows[std::size_t(pick)].row));
}
