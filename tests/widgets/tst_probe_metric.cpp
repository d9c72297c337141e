// Issue 24: a new metric is added in one place. This build (the asan preset,
// GAPSCOPE_PROBE_METRIC) adds Metric::Probe to the enum and one entry to the
// catalog, nothing else; here it must appear wherever metrics are offered: the
// op table's columns, the gap chart, the threshold editor, the CSV, JSON and
// HTML reports, the gates and a threshold typed as text.
#ifndef GAPSCOPE_PROBE_METRIC
#error "tst_probe_metric is built only with GAPSCOPE_PROBE_METRIC (the asan preset)"
#endif

#include "core/compare/gates.h"
#include "core/compare/metric_catalog.h"
#include "core/report/compare_report.h"
#include "core/report/html_report.h"
#include "core/session/session.h"
#include "widgets/gap_chart.h"
#include "widgets/op_table_model.h"
#include "widgets/threshold_editor.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QtTest>
#include <sstream>

using namespace gapscope;

namespace {

std::shared_ptr<const Session> demo() {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({GAPSCOPE_DEMO_DIR}, errors);
    return loadSession(inputs, {});
}

// The probe reads the mean |Δ|: a row's probe is the worst mean |Δ| of its elements.
std::optional<double> expected(const ComparisonRow& row) {
    return rowMetric(row, Metric::MeanAbs);
}

} // namespace

class ProbeMetricTest : public QObject {
    Q_OBJECT
private slots:
    void theCatalogHasIt();
    void theReportsCarryIt();
    void theGatesAndThresholdsTakeIt();
    void theTableChartAndEditorOfferIt();
};

void ProbeMetricTest::theCatalogHasIt() {
    const auto probe = findMetric("probe");
    QVERIFY(probe);
    QCOMPARE(probe->id, Metric::Probe);
    QCOMPARE(&metricCatalog().back(), &metricInfo(Metric::Probe));
}

void ProbeMetricTest::theReportsCarryIt() {
    const auto session = demo();
    QVERIFY(session->comparison);
    const Comparison& c = *session->comparison;

    std::ostringstream csv;
    writeComparisonCsv(csv, c);
    const std::string header = csv.str().substr(0, csv.str().find("\r\n"));
    QVERIFY(header.find(",top5,probe,max_abs_index") != std::string::npos);

    const auto json = comparisonToJson(c, ReportContext{});
    int measured = 0;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const auto& metrics = json["rows"][i]["metrics"];
        if (const auto want = expected(c.rows[i]); want && std::isfinite(*want)) {
            QCOMPARE(metrics["probe"].get<double>(), *want);
            ++measured;
        }
    }
    QVERIFY(measured > 0);

    std::ostringstream html;
    writeComparisonHtml(html, c, ReportContext{}, {});
    QVERIFY(html.str().find(">Probe") != std::string::npos);
}

void ProbeMetricTest::theGatesAndThresholdsTakeIt() {
    const auto session = demo();
    const Comparison& c = *session->comparison;
    std::string error;
    const auto gate = parseThreshold("PROBE=0", error);
    QVERIFY2(gate, error.c_str());
    QCOMPARE(gate->metric, Metric::Probe);
    QCOMPARE(describeThreshold(*gate), std::string("Probe > 0"));
    // Every row with a mean |Δ| above zero trips it; none trips a limit above all of them.
    std::size_t above = 0;
    double largest = 0;
    for (const auto& row : c.rows)
        if (const auto v = expected(row); v && row.status == RowStatus::Ok) {
            above += *v > 0 ? 1 : 0;
            largest = std::max(largest, *v);
        }
    QVERIFY(above > 0);
    std::size_t tripped = 0;
    for (const auto& f : gateFailures(c, {*gate}, false))
        tripped += f.kind == GateFailure::Kind::Row ? 1 : 0;
    QCOMPARE(tripped, above);
    for (const auto& f : gateFailures(c, {{Metric::Probe, largest * 2}}, false))
        QVERIFY(f.kind != GateFailure::Kind::Row);
}

void ProbeMetricTest::theTableChartAndEditorOfferIt() {
    const auto session = demo();
    OpTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(session);
    const int column = OpTableModel::column(Metric::Probe);
    QVERIFY(column >= OpTableModel::FirstMetric);
    QCOMPARE(model.columnCount(), OpTableModel::columns());
    QCOMPARE(model.headerData(column, Qt::Horizontal).toString(), QStringLiteral("Probe"));
    QCOMPARE(OpTableModel::metricOf(column), std::optional<Metric>(Metric::Probe));
    const auto& rows = session->comparison->rows;
    for (int r = 0; r < model.rowCount(); ++r)
        if (const auto want = expected(rows[static_cast<std::size_t>(r)]); want && std::isfinite(*want))
            QCOMPARE(model.index(r, column).data(OpTableModel::SortRole).toDouble(), *want);
    // The columns after it moved along: Status is still the last.
    QCOMPARE(model.headerData(OpTableModel::columns() - 1, Qt::Horizontal).toString(),
             QStringLiteral("Status"));

    GapChart chart;
    chart.setSession(session);
    chart.setMetric(Metric::Probe);
    QCOMPARE(chart.metric(), Metric::Probe);

    ThresholdEditor editor;
    QVERIFY(editor.metricBox()->findText(QStringLiteral("Probe")) >= 0);
    editor.setThreshold({Metric::Probe, 0.5});
    QCOMPARE(editor.threshold().metric, Metric::Probe);
}

QTEST_MAIN(ProbeMetricTest)
#include "tst_probe_metric.moc"
