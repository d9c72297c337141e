// What the screen says in a new user's first minute (issue 27, item 3): views
// cleared and saying why when there is no runtime tensor, counts read right at
// one, a filter that says it hides rows, "no op crosses" with the worst op
// offered, the reference's kind, the demos named.
#include "app/gui/app_settings.h"
#include "app/gui/comparison_selectors.h"
#include "app/gui/inspector_view.h"
#include "app/gui/session_status.h"
#include "gui_test_support.h"
#include "widgets/gap_chart.h"
#include "widgets/tensor_panel.h"
#include "widgets/threshold_editor.h"

#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>

using namespace gapscope;
using namespace gapscope::test;

class FirstMinuteTest : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QSettings().clear();
        AppSettings().setThreshold({Metric::Snr, 20.0});
    }
    void withoutRuntimeTensorsTheViewsSayWhy();
    void noDivergenceSaysSoAndOffersTheWorstOp();
    void aFilterSaysHowManyRowsItHides();
    void theReferenceSaysWhatItIs();
    void countsReadRightAtOne();
};

void FirstMinuteTest::withoutRuntimeTensorsTheViewsSayWhy() {
    MainWindow window;
    window.show();
    window.openPaths(demoFiles());
    QVERIFY(waitShown(window));
    window.inspector()->selectRow(std::size_t{0});
    QVERIFY(window.inspector()->tensorPanel()->mapShown(1));
    // The same folder without its debug buffer, opened after a session with data.
    QTemporaryDir dir;
    for (const char* name : {"run.etdp", "etrecord.bin", "capture_float.gscap.safetensors"})
        QVERIFY(QFile::copy(demoDir().filePath(QString::fromLatin1(name)),
                            dir.filePath(QString::fromLatin1(name))));
    window.openAnew({dir.path()});
    QVERIFY(waitShown(window));
    window.inspector()->selectRow(std::size_t{0});
    TensorPanel* panel = window.inspector()->tensorPanel();
    QVERIFY(panel->mapShown(0)); // the reference is there
    for (int which : {1, 2}) {
        QVERIFY(!panel->mapShown(which));
        QCOMPARE(panel->mapNote(which), QStringLiteral("no runtime tensor"));
    }
    QVERIFY2(panel->worstElementsText().isEmpty(),
             qPrintable(panel->worstElementsText())); // not the last session's
    QVERIFY2(window.statusLine()->text().startsWith(
                 QStringLiteral("4 ops aligned, none with numbers (no debug buffer: no runtime tensors)")),
             qPrintable(window.statusLine()->text()));
    QVERIFY(window.worstOpLink()->isHidden());
}

void FirstMinuteTest::noDivergenceSaysSoAndOffersTheWorstOp() {
    MainWindow window;
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    const auto s = window.session();
    QVERIFY(!s->first_divergence); // the demo at SNR < 20 dB
    QVERIFY2(window.statusLine()->text().contains(QStringLiteral("no op crosses SNR dB < 20")),
             qPrintable(window.statusLine()->text()));
    QVERIFY(!window.worstOpLink()->isHidden());
    const auto worst = worstRow(*s->comparison, s->threshold);
    QVERIFY(worst);
    QVERIFY(window.worstOpLink()->text().contains(QStringLiteral("row %1").arg(worst->row)));
    window.inspector()->selectRow(std::size_t{0});
    emit window.worstOpLink()->linkActivated(QString::number(worst->row));
    QCOMPARE(window.inspector()->chart()->selectedRow(), std::optional<std::size_t>(worst->row));
    // With a threshold an op crosses, the ⚑ is back and the offer goes, at once.
    window.inspector()->thresholdEditor()->valueBox()->setValue(60.0);
    QVERIFY(window.session()->first_divergence);
    QVERIFY2(window.statusLine()->text().contains(
                 QStringLiteral("first divergence ⚑ at row %1").arg(window.session()->first_divergence->row)),
             qPrintable(window.statusLine()->text()));
    QVERIFY(window.worstOpLink()->isHidden());
}

void FirstMinuteTest::aFilterSaysHowManyRowsItHides() {
    MainWindow window;
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    QLabel* count = window.inspector()->shownCount();
    QVERIFY(count->isHidden());
    window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->setText(QStringLiteral("topk"));
    QVERIFY(!count->isHidden());
    QCOMPARE(count->text(), QStringLiteral("1 of 4 shown (filter)"));
    window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->clear();
    QVERIFY(count->isHidden());
}

void FirstMinuteTest::theReferenceSaysWhatItIs() {
    MainWindow window;
    window.show();
    const auto kind = [&] { return window.findChild<QLabel*>(QStringLiteral("referenceKind"))->text(); };
    window.openDemo();
    QVERIFY(waitShown(window));
    QCOMPARE(kind(), QStringLiteral("float model"));
    QCOMPARE(window.windowTitle(), QStringLiteral("XNNPACK int8 demo — Gapscope"));
    window.openAnew(demoFiles("capture.gscap.safetensors"));
    QVERIFY(waitShown(window));
    QCOMPARE(kind(), QStringLiteral("quantised simulation (PT2E)"));
    window.openQnnDemo();
    QVERIFY(waitShown(window));
    // Issue 56: QNN's graph runs activations in float; its rows read 36-40 dB, not "near 0".
    QCOMPARE(kind(), QStringLiteral("QNN's lowered graph, activations in float"));
    QVERIFY(window.findChild<QLabel*>(QStringLiteral("referenceKind"))
                ->toolTip()
                .contains(QStringLiteral("35-45 dB")));
    QCOMPARE(window.windowTitle(), QStringLiteral("QNN 8a8w demo — Gapscope"));
    // A float program's ETRecord graph: ExecuTorch's own reference.
    window.openAnew({QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/multimethod_portable")});
    QVERIFY(waitShown(window));
    QCOMPARE(kind(), QStringLiteral("exported graph"));
}

void FirstMinuteTest::countsReadRightAtOne() {
    QCOMPARE(countOf(1, QStringLiteral("op"), QStringLiteral("ops")), QStringLiteral("1 op"));
    QCOMPARE(countOf(0, QStringLiteral("op"), QStringLiteral("ops")), QStringLiteral("0 ops"));
    QCOMPARE(countOf(12, QStringLiteral("op"), QStringLiteral("ops")), QStringLiteral("12 ops"));
}

QTEST_MAIN(FirstMinuteTest)
#include "tst_first_minute.moc"
