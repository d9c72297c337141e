// Issue 26: each op's time beside its gap. The op table's Time and Time %
// columns and the time-against-gap scatter read what core measured
// (op_latency.h) on a real ExecuTorch session (tests/data/portable_mha).
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "core/runs/run_diff.h"
#include "core/session/session.h"
#include "widgets/coverage_model.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/profile_model.h"
#include "widgets/run_diff_model.h"
#include "widgets/speed_accuracy_chart.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <qcustomplot.h>

using namespace gapscope;

namespace {

std::shared_ptr<const Session> session(const char* dir) {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({dir}, errors);
    std::shared_ptr<const Session> s = loadSession(inputs, {});
    return s;
}

} // namespace

class LatencyViewsTest : public QObject {
    Q_OBJECT
private slots:
    // The portable MHA session (real ExecuTorch output, every row timed), loaded
    // once for the views that only read it.
    void initTestCase() {
        m_mha = session(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
        QVERIFY(m_mha && m_mha->latency && m_mha->comparison);
    }
    void theTableShowsAndSortsEachOpsTime();
    void theScatterPlotsTimedOpsAndAClickSelects();
    void aSessionWithoutTimesSaysSo();
    void theAbTableComparesBothTimes();
    void theGraphColoursByTimeOrShowsATimeBar();
    void theCoverageListsTimesWithoutNumbersAndTheReverse();
    void theProfileTabListsEveryTimedEventAsTheInspector();

private:
    std::shared_ptr<const Session> m_mha;
};

void LatencyViewsTest::theTableShowsAndSortsEachOpsTime() {
    const auto& s = m_mha;
    OpTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(s);
    const int time = OpTableModel::column(OpTableModel::Tail::Time);
    const int share = OpTableModel::column(OpTableModel::Tail::Share);
    QCOMPARE(model.headerData(time, Qt::Horizontal).toString(), QStringLiteral("Time ms"));
    QCOMPARE(model.headerData(share, Qt::Horizontal).toString(), QStringLiteral("Time %"));
    QVERIFY(OpTableModel::numericColumn(time) && OpTableModel::numericColumn(share));
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto& t = s->latency->rows[model.comparisonRow(row)->index];
        QVERIFY(t.p50 && t.share);
        QCOMPARE(model.sortKey(row, time).value(), *t.p50);
        QCOMPARE(model.sortKey(row, share).value(), *t.share);
        QCOMPARE(model.index(row, time).data().toString(), QString::number(*t.p50, 'g', 3));
        QVERIFY(
            model.index(row, time).data(Qt::ToolTipRole).toString().contains(QStringLiteral("median over")));
    }
}

void LatencyViewsTest::theScatterPlotsTimedOpsAndAClickSelects() {
    const auto& s = m_mha;
    SpeedAccuracyChart chart;
    chart.resize(700, 320);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setMetric(Metric::Snr);
    chart.setSession(s);
    std::size_t expected = 0;
    for (std::size_t i = 0; i < s->comparison->rows.size(); ++i) {
        const auto v = rowMetric(s->comparison->rows[i], Metric::Snr);
        expected += s->latency->rows[i].share && v && !std::isnan(*v); // ±∞ drawn at the edge
    }
    QVERIFY(expected > 0);
    QCOMPARE(chart.plotted().size(), expected);
    // portable_mha's shares span 500×: a log axis, or all but the slowest sit in a corner (issue 56).
    QCOMPARE(chart.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    // A click on a point selects its op: the one of the largest time share.
    auto* plot = chart.plot();
    plot->replot();
    std::size_t slowest = 0;
    const auto finite = [&](std::size_t i) {
        return std::isfinite(*rowMetric(s->comparison->rows[chart.plotted()[i]], Metric::Snr));
    };
    while (!finite(slowest))
        ++slowest;
    for (std::size_t i = 0; i < chart.plotted().size(); ++i)
        if (finite(i) &&
            *s->latency->rows[chart.plotted()[i]].share > *s->latency->rows[chart.plotted()[slowest]].share)
            slowest = i;
    const std::size_t row = chart.plotted()[slowest];
    const double x = plot->xAxis->coordToPixel(100 * *s->latency->rows[row].share);
    const double y = plot->yAxis->coordToPixel(*rowMetric(s->comparison->rows[row], Metric::Snr));
    QSignalSpy clicked(&chart, &SpeedAccuracyChart::rowClicked);
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(qRound(x), qRound(y)));
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().value<std::size_t>(), row);
    // Far from every point, nothing is selected.
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(clicked.count(), 1);
}

void LatencyViewsTest::aSessionWithoutTimesSaysSo() {
    // QNN lowered without its profiling: the rows inside the delegate have no time.
    const auto s = session(GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w");
    QVERIFY(s && s->latency);
    OpTableModel model;
    model.setSession(s);
    const int time = OpTableModel::column(OpTableModel::Tail::Time);
    int untimed = 0;
    for (int row = 0; row < model.rowCount(); ++row)
        if (!s->latency->rows[model.comparisonRow(row)->index].p50) {
            ++untimed;
            QCOMPARE(model.index(row, time).data().toString(), QStringLiteral("—"));
            QVERIFY(model.index(row, time)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QStringLiteral("profile_level")));
        }
    QVERIFY(untimed > 0);
}

void LatencyViewsTest::theAbTableComparesBothTimes() {
    // Two loads of one session: every pairing's times are each side's own, B/A 1.
    const auto a = session(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
    const auto b = session(GAPSCOPE_TEST_DATA_DIR "/portable_mha");
    QVERIFY(a && a->latency && b && b->latency);
    RunDiffModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRuns(std::make_shared<const ComparedRuns>(
        compareRuns(summarizeRun(*a->comparison, "a", {}, a->latency.get()),
                    summarizeRun(*b->comparison, "b", {}, b->latency.get()))));
    QVERIFY(model.rowCount() > 0);
    for (int row = 0; row < model.rowCount(); ++row) {
        const auto& p = model.runs()->match.pairs[static_cast<std::size_t>(row)];
        QVERIFY(p.a && p.b);
        const auto& t = a->latency->rows[model.runs()->a.rows[*p.a].index];
        QCOMPARE(model.index(row, RunDiffModel::TimeA).data(RunDiffModel::SortRole).toDouble(), *t.p50);
        QCOMPARE(model.index(row, RunDiffModel::TimeRatio).data().toString(), QStringLiteral("1.00×"));
    }
}

void LatencyViewsTest::theGraphColoursByTimeOrShowsATimeBar() {
    const auto& s = m_mha;
    GraphView graph;
    graph.resize(800, 600);
    graph.show();
    graph.setSession(s);
    if (graph.layoutPending()) {
        QSignalSpy laid(&graph, &GraphView::laidOut);
        QVERIFY(laid.wait(30000));
    }
    // The slowest row and one much faster, both drawn.
    std::optional<std::size_t> slowest, fast;
    for (std::size_t i = 0; i < s->latency->rows.size(); ++i) {
        const auto share = s->latency->rows[i].share;
        if (!share || graph.boxOfRow(i) < 0)
            continue;
        if (!slowest || *share > *s->latency->rows[*slowest].share)
            slowest = i;
    }
    QVERIFY(slowest);
    const double top = *s->latency->rows[*slowest].share;
    for (std::size_t i = 0; i < s->latency->rows.size() && !fast; ++i)
        if (const auto share = s->latency->rows[i].share; share && *share < top / 4 &&
                                                          graph.boxOfRow(i) >= 0 &&
                                                          graph.boxOfRow(i) != graph.boxOfRow(*slowest))
            fast = i;
    QVERIFY(fast);
    QCOMPARE(graph.colourBy(), GraphView::ColourBy::Gap);
    QCOMPARE(graph.timeBar(*slowest), 0.0); // no bar when colouring by the gap alone
    graph.setColourBy(GraphView::ColourBy::Time);
    QCOMPARE(graph.boxBrush(*slowest), QColor(255, 90, 0)); // the slowest: the darkest orange
    // A quarter as slow or less: paler, and on a log scale still tinted (issue 56:
    // a linear scale left all but the slowest node white).
    QVERIFY(graph.boxBrush(*fast).green() > 90);
    QVERIFY(graph.boxBrush(*fast).green() < 245);
    QVERIFY(graph.legend()->text().contains(QStringLiteral("log scale")));
    graph.setColourBy(GraphView::ColourBy::GapAndTime);
    QCOMPARE(graph.timeBar(*slowest), 1.0);
    QVERIFY(graph.timeBar(*fast) > 0 && graph.timeBar(*fast) < 0.25 + 1e-9);
}

void LatencyViewsTest::theCoverageListsTimesWithoutNumbersAndTheReverse() {
    for (const char* dir :
         {GAPSCOPE_TEST_DATA_DIR "/portable_mha", GAPSCOPE_TEST_DATA_DIR "/qnn_multiout_8a8w"}) {
        const auto s = session(dir);
        QVERIFY(s && s->latency);
        CoverageModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSession(s);
        int timed = 0, untimed = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const QString kind = model.index(row, CoverageModel::Kind).data().toString();
            timed += kind == QStringLiteral("time_without_numbers");
            untimed += kind == QStringLiteral("numbers_without_time");
            if (kind == QStringLiteral("time_without_numbers"))
                QVERIFY(model.index(row, CoverageModel::Reason)
                            .data()
                            .toString()
                            .contains(QStringLiteral("median")));
        }
        QCOMPARE(static_cast<std::size_t>(timed), s->latency->timed_without_numerics.size());
        QCOMPARE(static_cast<std::size_t>(untimed), s->latency->rowsWithoutTime());
        QCOMPARE(static_cast<std::size_t>(model.rowCount()), s->comparison->coverage.size() +
                                                                 s->latency->timed_without_numerics.size() +
                                                                 s->latency->rowsWithoutTime());
        if (s->comparison->rows.size() > 0 && std::string(dir).find("qnn") != std::string::npos)
            QVERIFY(untimed > 0); // inside QNN's call, lowered without its profiling
    }
}

// Issue 56: the app had no Inspector-style timing table.
void LatencyViewsTest::theProfileTabListsEveryTimedEventAsTheInspector() {
    const auto s = session(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32");
    QVERIFY(s && s->profile);
    ProfileModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(s);
    std::size_t timed = 0;
    for (const auto& block : s->profile->blocks)
        for (const auto& e : block.events)
            timed += e.perf.has_value();
    QVERIFY(timed > 100); // XNNPACK's own operators among them
    QCOMPARE(static_cast<std::size_t>(model.rowCount()), timed);
    bool xnnpack = false;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QString name = model.index(row, ProfileModel::Event).data().toString();
        if (name.startsWith(QStringLiteral("Convolution (NHWC")) &&
            model.index(row, ProfileModel::Delegate).data().toString() == QStringLiteral("XnnpackBackend"))
            xnnpack = true;
        const double p10 = model.index(row, ProfileModel::P10).data(ProfileModel::SortRole).toDouble();
        const double p50 = model.index(row, ProfileModel::P50).data(ProfileModel::SortRole).toDouble();
        const double p90 = model.index(row, ProfileModel::P90).data(ProfileModel::SortRole).toDouble();
        QVERIFY(p10 <= p50 && p50 <= p90);
    }
    QVERIFY(xnnpack);
    QVERIFY(model.summary().contains(QStringLiteral("p10/p50/p90")));
    // In the window, Ctrl+6 shows it.
    MainWindow window;
    window.show();
    window.openPaths({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/xnnpack_wav2vec2_fp32")});
    QTRY_VERIFY_WITH_TIMEOUT(window.session() && window.session()->complete, 30000);
    QTest::keyClick(&window, Qt::Key_6, Qt::ControlModifier);
    auto* table = window.findChild<QTableView*>(QStringLiteral("profileTable"));
    QVERIFY(table && table->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(static_cast<std::size_t>(table->model()->rowCount()), timed, 10000);
}

QTEST_MAIN(LatencyViewsTest)
#include "tst_latency_views.moc"
