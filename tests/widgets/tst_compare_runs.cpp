// Issue 25: two sessions side by side in one window (the A/B tab). B loads on
// its own loader beside A; the rows pair as gapscope-cli diff pairs them; each
// side's numbers are exactly its own session's; the table sorts on numbers and
// filters "B worse by more than"; selecting a pairing selects A's op everywhere.
#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/ladder_controller.h"
#include "app/gui/main_window.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "app/gui/steps_controller.h"
#include "core/capture/reference_kind.h"
#include "core/compare/metric_catalog.h"
#include "core/runs/run_summary.h"
#include "widgets/fix_model.h"
#include "widgets/fix_view.h"
#include "widgets/frozen_columns_table_view.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/pair_tensor_view.h"
#include "widgets/run_diff_chart.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_proxy.h"
#include "widgets/run_diff_view.h"
#include "widgets/stage_ladder_view.h"
#include "widgets/step_matrix_view.h"
#include "widgets/tensor_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
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
        compareRuns(summarizeRun(*a.comparison, "a", runReference(a.capture.get())),
                    summarizeRun(*b.comparison, "b", runReference(b.capture.get()))));
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
    void theTensorsOfBothRunsSideBySide();
    void twoDecodeLoopsStepByStep();
    void everyMetricChooserNamesTheMetricsAsTheCatalog();
    void bArrivingDrawsTheAbTabOnce();
    void openingAnotherSessionClosesB();
    void aSavedSessionKeepsBAndAAndBSwap();
    void theAbResultIsExportedAndCopied();
    void differentReferencesAreSaidAboveTheTable();
    void bOpensBesideAInItsWorkspace();
    void aFixOpensItsVerifiedRunAsBBothAgainstTheFloatModel();
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
    // Every number column, both ways: the proxy reads RunDiffModel::sortNumber,
    // which is SortRole's value without a QVariant; missing values last.
    for (const int column : {int(RunDiffModel::A), int(RunDiffModel::B), int(RunDiffModel::ValueA),
                             int(RunDiffModel::ValueB), int(RunDiffModel::Delta), int(RunDiffModel::WorseBy)})
        for (const auto order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            proxy.sort(column, order);
            bool seenMissing = false;
            double last = order == Qt::AscendingOrder ? -INFINITY : INFINITY;
            for (int r = 0; r < proxy.rowCount(); ++r) {
                const QModelIndex index = proxy.mapToSource(proxy.index(r, column));
                const double v = index.data(RunDiffModel::SortRole).toDouble();
                const auto n = model.sortNumber(index.row(), column);
                QVERIFY(n && (std::isnan(*n) ? std::isnan(v) : *n == v));
                if (std::isnan(v)) {
                    seenMissing = true;
                    continue;
                }
                QVERIFY2(!seenMissing, "a pairing with a value after one without");
                QVERIFY(order == Qt::AscendingOrder ? v >= last : v <= last);
                last = v;
            }
        }
    QVERIFY(!model.sortNumber(0, RunDiffModel::Basis)); // a text column sorts by its text
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
    const RunSummary base = summarizeRun(*a->comparison, "demo", runReference(a->capture.get()));
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
    // A line per op, none in the (hidden) legend: clearing n legend items relays
    // the legend out n times, which took 13 s on 3,000 ops (bench: switch_run_complete_ms_3000).
    QCOMPARE(view.drift()->graphCount(), static_cast<int>(base.rows.size()));
    QCOMPARE(view.drift()->legend->itemCount(), 0);
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

    // B: the same loop on another backend, its op 1 losing 2 dB more a step; four steps.
    view.setMetric(Metric::Snr);
    QVERIFY(!view.showBox()->isVisible()); // nothing to choose before B is a loop
    auto stepsB = std::make_shared<SessionSteps>(*steps);
    for (std::size_t k = 0; k < 3; ++k)
        stepsB->steps[k].rows.at(1).metrics[snr] = 30.0 - 10.0 * double(k);
    stepsB->steps.push_back(stepsB->steps.back());
    stepsB->runs.push_back(4);
    view.setStepsB(stepsB);
    QVERIFY(view.showBox()->isVisible());
    view.setShow(StepMatrixView::ShowDifference);
    view.setMargin(3.0);
    QVERIFY(view.matrix().difference);
    QCOMPARE(view.matrix().steps, std::size_t(3)); // the steps both have
    QCOMPARE(view.matrix().at(*lowered, 0), 0.0);
    QCOMPARE(view.matrix().at(*lowered, 1), 2.0);
    QCOMPARE(view.matrix().at(*lowered, 2), 4.0);
    QVERIFY2(view.summary()->text().contains(QStringLiteral("First step B is worse by more than 3: step 2")),
             qPrintable(view.summary()->text()));
    QVERIFY(view.summary()->text().contains(QStringLiteral("(A has 3 steps, B 4.)")));
    // A click on A's rows still asks for that op and step; on B's matrix it selects nothing in A.
    QTest::mouseClick(view.heatmap(), Qt::LeftButton, {}, QPoint(x, y));
    QCOMPARE(clicked.count(), 2);
    view.setShow(StepMatrixView::ShowB);
    QCOMPARE(view.matrix().steps, std::size_t(4));
    QCOMPARE(view.matrix().at(*lowered, 2), 10.0);
    QVERIFY(view.summary()->text().startsWith(QStringLiteral("B: ")));
    QTest::mouseClick(view.heatmap(), Qt::LeftButton, {}, QPoint(x, y));
    QCOMPARE(clicked.count(), 2);
    // B closed: A's matrix again.
    view.setStepsB(nullptr);
    QCOMPARE(view.shown(), StepMatrixView::ShowA);
    QVERIFY(!view.matrix().difference);
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

void CompareRunsTest::theTensorsOfBothRunsSideBySide() {
    // A: the demo against its int8 capture; B: the same program's run against
    // the float model's capture. One runtime, two references.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.openPaths({kDemo});
    const QStringList floatB = {kDemo + QStringLiteral("/run.etdp"), kDemo + QStringLiteral("/run.debug.bin"),
                                kDemo + QStringLiteral("/etrecord.bin"),
                                kDemo + QStringLiteral("/capture_float.gscap.safetensors")};
    QSignalSpy opened(&window, &MainWindow::sessionShown);
    QVERIFY(opened.wait(30000));
    // The user's op in A: the pairing shown for them must not take it away.
    const std::size_t chosen = window.session()->comparison->rows.back().index;
    window.inspector()->selectRow(chosen);
    window.compareWith(floatB);
    QVERIFY(waitCompared(window));
    RunDiffView* view = window.inspector()->runDiffView();
    PairTensorView* tensors = view->tensors();
    // The worst pairing is selected for the user, and its tensors shown.
    QVERIFY(view->table()->currentIndex().isValid());
    QVERIFY(tensors->title().contains(QStringLiteral("A row")));
    QCOMPARE(window.inspector()->opView()->currentIndex().data(OpTableModel::RowIndexRole).toULongLong(),
             qulonglong(chosen));

    // A click on the pairing shown selects A's op as any other choice does.
    const QModelIndex first = view->proxy()->index(0, 0);
    QTest::mouseClick(view->table()->viewport(), Qt::LeftButton, {},
                      view->table()->visualRect(first).center());
    const auto runs = window.comparison()->runs();
    const auto& firstPair =
        runs->match.pairs[static_cast<std::size_t>(first.data(RunDiffModel::PairRole).toInt())];
    QVERIFY(firstPair.a);
    QCOMPARE(window.inspector()->opView()->currentIndex().data(OpTableModel::RowIndexRole).toULongLong(),
             qulonglong(runs->a.rows[*firstPair.a].index));
    view->table()->selectionModel()->clearCurrentIndex();
    std::size_t shown = 0;
    for (int r = 0; r < view->proxy()->rowCount(); ++r) {
        const auto pair =
            static_cast<std::size_t>(view->proxy()->index(r, 0).data(RunDiffModel::PairRole).toInt());
        const auto& p = runs->match.pairs[pair];
        view->table()->setCurrentIndex(view->proxy()->index(r, 0));
        if (!p.a || !p.b) {
            QVERIFY(tensors->summary().startsWith(QStringLiteral("Only in")));
            QVERIFY(tensors->values(PairTensorView::Difference).empty());
            continue;
        }
        if (tensors->values(PairTensorView::Difference).empty())
            continue; // not one tensor, or nothing to read: the summary says why
        QVERIFY(!tensors->summary().isEmpty());
        QVERIFY(!tensors->pending());
        // A's runtime is exactly what the Ops tab's tensor panel shows for A's row.
        TensorPanel* own = window.inspector()->tensorPanel();
        QCOMPARE(own->row(), std::optional<std::size_t>(runs->a.rows[*p.a].index));
        const auto& mine = own->values(1);
        const auto& theirs = tensors->values(PairTensorView::RuntimeA);
        QCOMPARE(theirs.size(), mine.size());
        for (std::size_t i = 0; i < mine.size(); ++i)
            QVERIFY(theirs[i] == mine[i] || (std::isnan(theirs[i]) && std::isnan(mine[i])));
        QCOMPARE(tensors->values(PairTensorView::Reference), own->values(0));
        // One runtime on both sides: B − A is 0 everywhere.
        for (double d : tensors->values(PairTensorView::Difference))
            QCOMPARE(d, 0.0);
        QVERIFY2(tensors->summary().contains(QStringLiteral("identical")), qPrintable(tensors->summary()));
        ++shown;
    }
    QVERIFY(shown >= 4);
    // The references differ somewhere, and the panel says so.
    bool saysReferencesDiffer = false;
    for (int r = 0; r < view->proxy()->rowCount() && !saysReferencesDiffer; ++r) {
        view->table()->setCurrentIndex(view->proxy()->index(r, 0));
        saysReferencesDiffer = tensors->summary().contains(QStringLiteral("B's reference differs"));
    }
    QVERIFY(saysReferencesDiffer);
    // Hovering a cell reads all four values.
    QCustomPlot* plot = tensors->plot(PairTensorView::RuntimeB);
    QTest::mouseMove(plot, plot->axisRect()->center());
    QVERIFY2(tensors->hoverText().contains(QStringLiteral("B − A")), qPrintable(tensors->hoverText()));
    // Closing the comparison leaves nothing behind.
    view->setMessage(QStringLiteral("closed"));
    QVERIFY(tensors->values(PairTensorView::Reference).empty());
}

void CompareRunsTest::twoDecodeLoopsStepByStep() {
    // Real ExecuTorch output (tests/data/makers/decode_loops.py): one KV-cache
    // decode loop in float (A) and in int8 (B), six executions each, every one
    // against its own step of the float model.
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy stepsA(window.steps(), &StepsController::ready);
    QSignalSpy stepsB(window.stepsB(), &StepsController::ready);
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/decode_loop_portable")});
    window.compareWith({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/decode_loop_int8")});
    QVERIFY(waitCompared(window));
    QTRY_VERIFY_WITH_TIMEOUT(stepsA.count() == 1 && stepsB.count() == 1, 30000);
    StepMatrixView* view = window.inspector()->stepsView();
    window.inspector()->showTab(InspectorView::StepsTab);
    QVERIFY(view->showBox()->isVisible());
    view->setShow(StepMatrixView::ShowDifference);
    const StepMatrix& d = view->matrix();
    QVERIFY(d.difference);
    QCOMPARE(d.steps, std::size_t(6));
    // int8 against float: B is worse on every op with a number on both sides, at
    // every step; 0 only where both are exact (the mask's comparison, `gt`).
    std::size_t worse = 0;
    for (double v : d.values)
        if (std::isfinite(v)) {
            QVERIFY2(v > 40 || v == 0, qPrintable(QString::number(v)));
            worse += v > 40;
        }
    QVERIFY(worse >= 6 * 6);

    // A cell at step 3: A shows that execution, and B follows it, so the A/B tab
    // pairs step 3 with step 3 (one reference on both sides).
    const auto op = view->opOfRow(0, window.session()->comparison->rows.front().index);
    QVERIFY(op);
    view->heatmap()->replot();
    QSignalSpy compared(window.comparison(), &CompareController::compared);
    QTest::mouseClick(view->heatmap(), Qt::LeftButton, {},
                      QPoint(static_cast<int>(view->heatmap()->xAxis->coordToPixel(3)),
                             static_cast<int>(view->heatmap()->yAxis->coordToPixel(double(*op)))));
    QVERIFY(compared.wait(30000));
    const auto runs = window.comparison()->runs();
    QCOMPARE(window.session()->comparison->run, view->steps()->runs[3]);
    QCOMPARE(runs->b.run, view->stepsB()->runs[3]);
    QCOMPARE(runs->a.run, runs->b.run);
    window.inspector()->showTab(InspectorView::AbTab);
    PairTensorView* tensors = window.inspector()->runDiffView()->tensors();
    QTRY_VERIFY_WITH_TIMEOUT(!tensors->pending(), 10000);
    QVERIFY2(tensors->summary().contains(QStringLiteral("Both captures hold the same reference")),
             qPrintable(tensors->summary()));
    // A's op is the one clicked, at its step.
    QCOMPARE(window.inspector()->opView()->currentIndex().data(OpTableModel::RowIndexRole).toLongLong(),
             static_cast<qlonglong>(d.rowAt(*op, 3)));
}

void CompareRunsTest::everyMetricChooserNamesTheMetricsAsTheCatalog() {
    // The A/B table's and the steps' choosers read "Max |Δ|" as Latin-1 once:
    // "Max |Î”|". Every chooser now labels a metric as the catalog writes it.
    RunDiffView ab;
    StepMatrixView steps;
    for (QWidget* view : std::initializer_list<QWidget*>{&ab, &steps}) {
        int offered = 0;
        for (const auto* box : view->findChildren<QComboBox*>())
            for (int i = 0; i < box->count(); ++i)
                if (box->itemData(i).toInt() == static_cast<int>(Metric::MaxAbs) &&
                    box->itemText(i).contains(QLatin1Char('|'))) {
                    QCOMPARE(box->itemText(i), QString::fromUtf8(metricInfo(Metric::MaxAbs).label));
                    ++offered;
                }
        QCOMPARE(offered, 1);
    }
}

// Issue 60: B arriving in the A/B tab (its message replaced by the pairing)
// drew the chart twice and the whole window twice: the summary grew from one
// line to two, which moved the chart, and every plot's replot repainted the
// window at once. The chart now keeps its place and is drawn once, and no plot
// of the window repaints at once.
void CompareRunsTest::bArrivingDrawsTheAbTabOnce() {
    // Two runs with nothing to warn about (a warning above the table moves it, rightly).
    const auto a = load(kDemo), b = load(kDemo);
    QVERIFY(a->comparison && b->comparison);
    MainWindow window;
    for (const auto* plot : window.findChildren<QCustomPlot*>())
        QVERIFY2(!plot->plottingHints().testFlag(QCP::phImmediateRefresh), "a plot made without newPlot");
    RunDiffView view;
    view.resize(1200, 800);
    view.setMessage(QStringLiteral("Loading B: somewhere…"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QApplication::processEvents();
    const QRect before = view.chart()->geometry();
    QSignalSpy replots(view.chart()->plot(), &QCustomPlot::afterReplot);
    view.setRuns(pairOf(*a, *b));
    QTRY_VERIFY(replots.count() >= 1);
    QApplication::processEvents();
    QApplication::processEvents();
    QCOMPARE(view.chart()->geometry(), before);
    QCOMPARE(replots.count(), 1);
}

// Issue 56: with A and B open, File → Open of another session, "Open instead",
// paired the new A with the old B. B goes with the session it was compared with.
void CompareRunsTest::openingAnotherSessionClosesB() {
    MainWindow window;
    window.openPaths({kDemo});
    window.compareWith({kOther});
    QVERIFY(waitCompared(window));
    QVERIFY(window.comparison()->hasB());
    window.openAnew({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/portable_recurrent")}); // "Open instead"
    QVERIFY(!window.comparison()->hasB());
    QVERIFY(!window.comparison()->runs());
    QCOMPARE(window.inspector()->runDiffView()->model()->rowCount(), 0);
    QVERIFY(window.inspector()->runDiffView()->summary()->text().contains(QStringLiteral("B was closed")));
    // Files added to the open session keep B (only another session replaces A).
    window.compareWith({kOther});
    QVERIFY(waitCompared(window));
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/portable_recurrent/run.debug.bin")});
    QVERIFY(window.comparison()->hasB());
}

// Issue 56: a saved session forgot B, and A and B could not be swapped.
void CompareRunsTest::aSavedSessionKeepsBAndAAndBSwap() {
    const QString a = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_int8");
    const QString b = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32");
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("ab.gapscope.json"));
    {
        MainWindow window;
        window.openPaths({a});
        window.compareWith({b});
        QVERIFY(waitCompared(window));
        QVERIFY(window.saveSession(saved));
    }
    MainWindow window;
    QVERIFY(window.openSessionFile(saved));
    QTRY_VERIFY_WITH_TIMEOUT(window.comparison()->hasB(), 10000);
    QVERIFY(waitCompared(window));
    QCOMPARE(window.comparison()->pathsB(), QStringList{QFileInfo(b).absoluteFilePath()});
    const std::string labelA = window.comparison()->runs()->a.label;
    const std::string labelB = window.comparison()->runs()->b.label;
    QVERIFY(labelA != labelB);
    // Swapped: B's files are the session, A's compared beside it.
    QVERIFY(window.inspector()->runDiffView()->swapButton()->isEnabled());
    QTest::mouseClick(window.inspector()->runDiffView()->swapButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.comparison()->runs() && window.comparison()->runs()->a.label == labelB &&
                                 !window.comparison()->busy(),
                             30000);
    QCOMPARE(window.comparison()->runs()->b.label, labelA);
    QCOMPARE(window.controller()->paths(), QStringList{QFileInfo(b).absoluteFilePath()});
    // The demo has no files to compare beside another: no swap.
    window.openDemo();
    QVERIFY(!window.swapRuns());
}

void CompareRunsTest::theAbResultIsExportedAndCopied() {
    MainWindow window;
    window.resize(1366, 768);
    window.show();
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_int8")});
    window.compareWith({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32")});
    QVERIFY(waitCompared(window));
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("ab.json"));
    QVERIFY(window.exportAb(json, RunDiffView::ExportFormat::Json));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(doc.value(QStringLiteral("format")).toString(), QStringLiteral("gapscope.diff"));
    QCOMPARE(doc.value(QStringLiteral("pairs")).toArray().size(),
             static_cast<int>(window.comparison()->runs()->match.pairs.size()));
    QVERIFY(window.exportAb(dir.filePath(QStringLiteral("ab.csv")), RunDiffView::ExportFormat::Csv));
    QVERIFY(window.exportAb(dir.filePath(QStringLiteral("ab.md")), RunDiffView::ExportFormat::Markdown));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("ab.md"))).size() > 100);
    // The report has a section on B, and every pairing beside it (issue 56: no word of B).
    const QString folder = dir.filePath(QStringLiteral("report"));
    ReportExporter exporter(window.session(), Metric::Snr, folder, 0);
    exporter.setSessionName(window.sessionName());
    exporter.setComparedRuns(window.comparison()->runs(), Metric::Snr);
    QSignalSpy finished(&exporter, &ReportExporter::finished);
    exporter.start();
    QVERIFY(finished.count() > 0 || finished.wait(30000));
    QCOMPARE(finished.first().first().toString(), QString());
    for (const char* file : {"ab.csv", "ab.json", "ab.md"})
        QVERIFY(QFileInfo(QDir(folder).filePath(QString::fromLatin1(file))).size() > 100);
    QFile page(QDir(folder).filePath(QStringLiteral("index.html")));
    QVERIFY(page.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(page.readAll());
    QVERIFY(html.contains(QStringLiteral("<title>Gapscope report — xnnpack_wav2vec2_int8</title>")));
    QVERIFY(html.contains(QStringLiteral("<h2>A/B: against xnnpack_wav2vec2_fp32</h2>")));
    QVERIFY(html.contains(QStringLiteral("A is measured against: quantised simulation")));
    // An input is never replaced by an export.
    QVERIFY(!window.exportAb(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_int8/run.etdp"),
                             RunDiffView::ExportFormat::Csv));
    // A's op stays in view while the numbers scroll; the row menu copies at full precision.
    RunDiffView* view = window.inspector()->runDiffView();
    window.inspector()->showTab(InspectorView::AbTab);
    QVERIFY(view->table()->frozenView()->isVisible());
    QVERIFY(view->table()->isFrozen(RunDiffModel::A));
    QCOMPARE(view->table()->horizontalHeader()->visualIndex(RunDiffModel::WorseBy), 2);
    QModelIndex first; // the first row whose B has a finite number
    for (int row = 0; row < view->proxy()->rowCount() && !first.isValid(); ++row)
        if (view->model()->paired(view->proxy()->mapToSource(view->proxy()->index(row, 0)).row()) &&
            std::isfinite(
                view->proxy()->index(row, RunDiffModel::ValueB).data(RunDiffModel::SortRole).toDouble()))
            first = view->proxy()->index(row, RunDiffModel::ValueB);
    QVERIFY(first.isValid());
    QMenu* menu = view->rowMenu(first);
    QVERIFY(menu->actions().size() >= 4);
    menu->actions().front()->trigger();
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    const auto pair = static_cast<std::size_t>(first.data(RunDiffModel::PairRole).toInt());
    const auto& p = window.comparison()->runs()->match.pairs[pair];
    const auto b = metricDelta(window.comparison()->runs()->a, window.comparison()->runs()->b, p,
                               view->model()->metric())
                       .b;
    QVERIFY(b);
    const int at = static_cast<int>(
        lines[0]
            .split(QLatin1Char('\t'))
            .indexOf(view->model()->headerData(RunDiffModel::ValueB, Qt::Horizontal).toString()));
    QVERIFY(at >= 0);
    QCOMPARE(lines[1].split(QLatin1Char('\t'))[at].toDouble(), *b);
}

// Issue 56: one run against its quantised simulation, the other against the
// exported float graph: the difference is no backend's, and the tab says so.
void CompareRunsTest::differentReferencesAreSaidAboveTheTable() {
    MainWindow window;
    window.show();
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_int8")});
    window.compareWith({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32")});
    QVERIFY(waitCompared(window));
    QLabel* warning = window.inspector()->runDiffView()->warning();
    QVERIFY(!warning->isHidden());
    QVERIFY(warning->text().contains(QStringLiteral("A is measured against: quantised simulation (PT2E)")));
    // One kind on both sides: nothing to warn about.
    window.compareWith({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_int8")});
    QVERIFY(waitCompared(window));
    QVERIFY(warning->isHidden());
    QVERIFY(
        window.inspector()->runDiffView()->summary()->text().contains(QStringLiteral("Both against the")));
}

// B is a file set of A's workspace (issue 57: the A/B tab opened B with a
// fresh workspace and never used the file sets built for it): B's files that A
// read are not read again, and the steps and switches of B stay in it.
void CompareRunsTest::bOpensBesideAInItsWorkspace() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({kDemo});
    QVERIFY(shown.wait(30000));
    const auto workspace = window.loader()->workspace();
    QVERIFY(workspace);
    const auto reads = workspace->reads();
    window.compareWith({kDemo}); // the same files: nothing to read
    QVERIFY(waitCompared(window));
    QCOMPARE(window.comparison()->loaderB()->workspace(), workspace);
    QCOMPARE(workspace->fileSetCount(), std::size_t{2});
    QCOMPARE(window.comparison()->loaderB()->fileSet(), FileSetId{1});
    // B's files are A's, mapped once (the same files at the same paths).
    QCOMPARE(window.comparison()->pairedB()->etdump_file, window.session()->etdump_file);
    QCOMPARE(workspace->reads(), reads);
    // B's numbers are its own, as a session opened alone gives them.
    QCOMPARE(window.comparison()->runs()->match.matched, window.session()->comparison->rows.size());
    // Another session opened anew: B closes, and lets go of A's old workspace.
    window.openAnew({kOther});
    QVERIFY(shown.wait(30000));
    QVERIFY(!window.comparison()->hasB());
    QVERIFY(!window.comparison()->loaderB()->workspace());
}

QTEST_MAIN(CompareRunsTest)
#include "tst_compare_runs.moc"

// Issue 59: a session with gapscope-capture fix's report beside it (fix/fix.json,
// the exporter's, with its verified run in fix/fixed) shows the fix under the
// ladder, and "Compare with the fixed run" opens that run as B, A and B both
// against the float model.
void CompareRunsTest::aFixOpensItsVerifiedRunAsBBothAgainstTheFloatModel() {
    QTemporaryDir dir;
    const QDir session(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_taps_int8"));
    const QDir root(dir.path());
    QVERIFY(root.mkpath(QStringLiteral("fix/fixed")));
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors",
                             "float.gscap.safetensors"})
        QVERIFY(QFile::copy(session.filePath(QString::fromLatin1(name)),
                            root.filePath(QString::fromLatin1(name))));
    // The verified run: the same session here, its float reference named as fix writes it.
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin"})
        QVERIFY(QFile::copy(session.filePath(QString::fromLatin1(name)),
                            root.filePath(QStringLiteral("fix/fixed/") + QString::fromLatin1(name))));
    QVERIFY(QFile::copy(session.filePath(QStringLiteral("float.gscap.safetensors")),
                        root.filePath(QStringLiteral("fix/fixed/capture_float.gscap.safetensors"))));
    QVERIFY(QFile::copy(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/fix_report/fix.json"),
                        root.filePath(QStringLiteral("fix/fix.json"))));

    MainWindow window;
    QSignalSpy fix(window.ladder(), &LadderController::fixFound);
    QSignalSpy ladder(window.ladder(), &LadderController::ready);
    window.openPaths({dir.path()});
    QVERIFY(fix.wait(30000));
    QVERIFY(ladder.count() == 1 || ladder.wait(30000));
    FixView* view = window.inspector()->ladderView()->fixView();
    QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(view->model()->report());
    QCOMPARE(view->model()->rowCount(), 7);
    QVERIFY2(
        view->verdict()->text().contains(QStringLiteral("met. Output SNR 23.3 dB → 54.2 dB with culprit")),
        qPrintable(view->verdict()->text()));
    QVERIFY(view->snippet()->toPlainText().contains(QStringLiteral("get_module_name_filter")));
    // Sorted by what each recovered, the culprit first.
    QCOMPARE(view->table()->model()->index(0, FixModel::Module).data().toString(), QStringLiteral("culprit"));

    QVERIFY(!view->openFixed()->isHidden());
    view->openFixed()->click();
    QVERIFY(waitCompared(window));
    if (referenceKind(*window.session()->capture) != ReferenceKind::FloatModel) // A switches its reference
        QVERIFY(waitCompared(window));
    QCOMPARE(referenceKind(*window.session()->capture), ReferenceKind::FloatModel);
    const auto runs = window.comparison()->runs();
    QVERIFY(runs);
    QVERIFY(window.comparison()
                ->pathsB()
                .join(QStringLiteral(";"))
                .contains(QStringLiteral("fix/fixed/capture_float.gscap.safetensors")));
    QVERIFY(window.inspector()->runDiffView()->summary()->text().contains(QStringLiteral("float model")));
}
