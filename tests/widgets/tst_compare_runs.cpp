// Issue 25: two sessions side by side in one window (the A/B tab). B loads on
// its own loader beside A; the rows pair as gapscope-cli diff pairs them; each
// side's numbers are exactly its own session's; the table sorts on numbers and
// filters "B worse by more than"; selecting a pairing selects A's op everywhere.
#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_loader.h"
#include "core/compare/metric_catalog.h"
#include "core/compare/run_summary.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/run_diff_chart.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_proxy.h"
#include "widgets/run_diff_view.h"
#include "widgets/step_matrix_view.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

using namespace gapscope;

namespace {

const QString kDemo = QStringLiteral(GAPSCOPE_DEMO_DIR);
const QString kOther = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_elementwise_int8");

std::shared_ptr<const Session> load(const QString& dir) {
    std::vector<Error> errors;
    return loadSession(sessionInputsFromPaths({dir.toStdString()}, errors), {});
}

std::shared_ptr<const ComparedRuns> pairOf(const Session& a, const Session& b) {
    return std::make_shared<const ComparedRuns>(
        compareRuns(summarizeRun(*a.comparison, "a", referenceProgramDigest(*a.capture)),
                    summarizeRun(*b.comparison, "b", referenceProgramDigest(*b.capture))));
}

bool waitCompared(MainWindow& window) {
    if (window.comparison()->runs() && !window.comparison()->busy())
        return true;
    QSignalSpy compared(window.comparison(), &CompareController::compared);
    return compared.wait(30000);
}

} // namespace

class CompareRunsTest : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().clear(); }
    void modelAndProxyPassTheModelTester();
    void aSessionAgainstItselfPairsEveryRowByHandle();
    void anotherProgramPairsByNodeAndListsEveryRow();
    void theStepsViewShowsOpsBySteps();
    void theGraphColoursByTheDifference();
};

void CompareRunsTest::modelAndProxyPassTheModelTester() {
    const auto a = load(kDemo), b = load(kOther);
    QVERIFY(a->comparison && b->comparison);
    RunDiffModel model;
    RunDiffProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester modelTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(pairOf(*a, *b));
    const auto& runs = *model.runs();
    QCOMPARE(model.rowCount(), static_cast<int>(runs.match.pairs.size()));
    proxy.sort(RunDiffModel::WorseBy, Qt::DescendingOrder);
    model.setMetric(Metric::Mse);
    QCOMPARE(model.headerData(RunDiffModel::ValueA, Qt::Horizontal).toString(),
             QString::fromLatin1(metricInfo(Metric::Mse).label) + QStringLiteral(" A"));
    // Sorted on numbers: worse-by descends, missing values last.
    double previous = INFINITY;
    bool missing = false;
    for (int r = 0; r < proxy.rowCount(); ++r) {
        const double v = proxy.index(r, RunDiffModel::WorseBy).data(RunDiffModel::SortRole).toDouble();
        if (std::isnan(v)) {
            missing = true;
            continue;
        }
        QVERIFY2(!missing, "a pairing with a value after one without");
        QVERIFY(v <= previous);
        previous = v;
    }
    proxy.setShowUnpaired(false);
    QCOMPARE(proxy.rowCount(), static_cast<int>(runs.match.matched));
    proxy.setShowUnpaired(true);
    model.setRuns(nullptr);
    QCOMPARE(proxy.rowCount(), 0);
}

void CompareRunsTest::aSessionAgainstItselfPairsEveryRowByHandle() {
    MainWindow window;
    window.openPaths({kDemo});
    window.compareWith({kDemo});
    QVERIFY(waitCompared(window));
    const auto runs = window.comparison()->runs();
    QVERIFY(runs->match.by_handle);
    const auto& rows = window.session()->comparison->rows;
    QCOMPARE(runs->match.matched, rows.size());
    QCOMPARE(runs->match.a_only + runs->match.b_only, std::size_t(0));
    RunDiffView* view = window.inspector()->runDiffView();
    QVERIFY(view->isVisible() || window.inspector()->runDiffView()->parentWidget());
    QVERIFY(view->summary()->text().contains(QStringLiteral("debug handle")));
    // Each side's value is the session's own, to the bit.
    const std::size_t snr = metricIndex(Metric::Snr);
    for (const auto& p : runs->match.pairs) {
        const auto own = rowMetric(rows[runs->a.rows[*p.a].index], Metric::Snr);
        QCOMPARE(runs->a.rows[*p.a].metrics[snr].has_value(), own.has_value());
        if (own)
            QCOMPARE(*runs->a.rows[*p.a].metrics[snr], *own);
    }
    // Nothing got worse: the filter keeps no pairing.
    view->setWorseThan(0.0);
    QCOMPARE(view->proxy()->rowCount(), 0);
    QVERIFY(view->summary()->text().contains(QStringLiteral("0 of %1 shown").arg(rows.size())));
    view->setWorseThan(std::nullopt);
    QCOMPARE(view->proxy()->rowCount(), static_cast<int>(rows.size()));

    // A pairing picked in the A/B table is A's op everywhere.
    const int last = view->proxy()->rowCount() - 1;
    const auto pair =
        static_cast<std::size_t>(view->proxy()->index(last, 0).data(RunDiffModel::PairRole).toInt());
    view->table()->setCurrentIndex(view->proxy()->index(last, 0));
    const std::size_t row = runs->a.rows[*runs->match.pairs[pair].a].index;
    const QModelIndex current = window.inspector()->opView()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.data(OpTableModel::RowIndexRole).toULongLong(), qulonglong(row));
    QCOMPARE(view->chart()->plotted().size(), rows.size());
}

void CompareRunsTest::anotherProgramPairsByNodeAndListsEveryRow() {
    MainWindow window;
    window.openPaths({kDemo});
    window.compareWith({kOther});
    QVERIFY(waitCompared(window));
    const auto runs = window.comparison()->runs();
    QVERIFY(!runs->match.by_handle);
    QCOMPARE(runs->match.matched + runs->match.a_only, runs->a.rows.size());
    QCOMPARE(runs->match.matched + runs->match.b_only, runs->b.rows.size());
    QCOMPARE(static_cast<std::size_t>(window.inspector()->runDiffView()->model()->rowCount()),
             runs->match.pairs.size());
    // B is another session's: A (the window's) is untouched by it.
    QCOMPARE(QFileInfo(QString::fromStdString(window.session()->etdump_file->path())).dir().dirName(),
             QFileInfo(kDemo).fileName());
    // A B that is not a session says why, and nothing is compared.
    QSignalSpy failed(window.comparison(), &CompareController::failed);
    window.compareWith({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/makers")});
    QVERIFY(failed.wait(30000));
    QVERIFY(
        window.inspector()->runDiffView()->summary()->text().contains(QStringLiteral("cannot be compared")));
    QCOMPARE(window.inspector()->runDiffView()->model()->rowCount(), 0);
}

void CompareRunsTest::theStepsViewShowsOpsBySteps() {
    // Three steps of one session (its rows, with SNR lowered step by step on one op).
    const auto a = load(kDemo);
    const RunSummary base = summarizeRun(*a->comparison, "demo", referenceProgramDigest(*a->capture));
    auto steps = std::make_shared<SessionSteps>();
    const std::size_t snr = metricIndex(Metric::Snr);
    for (std::size_t k = 0; k < 3; ++k) {
        RunSummary step = base;
        step.rows.at(1).metrics[snr] = 30.0 - 8.0 * double(k);
        steps->steps.push_back(step);
        steps->runs.push_back(k + 1);
    }
    StepMatrixView view;
    view.resize(900, 400);
    view.setSteps(steps, {Metric::Snr, 20.0});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.matrix().steps, std::size_t(3));
    QCOMPARE(view.matrix().ops.size(), base.rows.size());
    QVERIFY2(view.summary()->text().contains(QStringLiteral("First crossing of SNR dB < 20: step 2")),
             qPrintable(view.summary()->text()));
    // A click on a cell asks for that op at that step.
    QSignalSpy clicked(&view, &StepMatrixView::cellClicked);
    view.heatmap()->replot();
    const int x = static_cast<int>(view.heatmap()->xAxis->coordToPixel(2));
    const int y = static_cast<int>(view.heatmap()->yAxis->coordToPixel(1));
    QTest::mouseClick(view.heatmap(), Qt::LeftButton, {}, QPoint(x, y));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).value<std::size_t>(), std::size_t(1));
    QCOMPARE(clicked.at(0).at(1).value<std::size_t>(), std::size_t(2));
    // The op lowered step by step: 14 dB at step 2, the first crossing.
    const auto lowered = view.opOfRow(2, base.rows.at(1).index);
    QVERIFY(lowered);
    QCOMPARE(view.matrix().at(*lowered, 2), 14.0);
    QCOMPARE(view.matrix().first_crossing->op, *lowered);
    view.setMetric(Metric::Mse);
    QVERIFY(view.summary()->text().contains(QStringLiteral("Worst")));
}

void CompareRunsTest::theGraphColoursByTheDifference() {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    window.openPaths({kDemo});
    window.compareWith({kDemo});
    QVERIFY(waitCompared(window));
    GraphView* graph = window.inspector()->graphView();
    window.inspector()->showTab(InspectorView::GraphTab);
    if (graph->layoutPending()) {
        QSignalSpy laid(graph, &GraphView::laidOut);
        QVERIFY(laid.wait(30000));
    }
    // Offered once B is paired; the same session on both sides: nothing changed.
    const auto& rows = window.session()->comparison->rows;
    graph->setColourByDifference(true);
    QVERIFY(graph->colourByDifference());
    // Row 0 ten units worse in B, row 1 ten better: red and green.
    std::map<std::size_t, double> worse{{rows[0].index, 10.0}, {rows[1].index, -10.0}};
    graph->setDifference(worse, QStringLiteral("SNR dB"));
    graph->setColourByDifference(true);
    const QColor worseColour = graph->boxBrush(rows[0].index), betterColour = graph->boxBrush(rows[1].index);
    QVERIFY2(worseColour.red() == 255 && worseColour.green() < 200, qPrintable(worseColour.name()));
    QVERIFY2(betterColour.green() == 255 && betterColour.red() < 200, qPrintable(betterColour.name()));
    // No comparison: the choice goes, and the gap colours come back.
    graph->setDifference({}, {});
    QVERIFY(!graph->colourByDifference());
}

QTEST_MAIN(CompareRunsTest)
#include "tst_compare_runs.moc"
