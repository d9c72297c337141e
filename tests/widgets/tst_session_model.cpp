// The session model (issue 57): one snapshot of the session shown, and what
// changed in it through typed signals, in order: opened, rows measured,
// completed; a threshold changed rejudges the snapshot once, for every view,
// and the window, the inspector and the controllers all read that one snapshot.
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_loader.h"
#include "app/gui/session_model.h"
#include "core/compare/findings.h"
#include "widgets/threshold_editor.h"

#include <QSettings>
#include <QSignalSpy>
#include <QtTest>

using namespace gapscope;

class SessionModelTest : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().clear(); }
    void stagesArriveInOrderAsOneSnapshot();
    void aThresholdRejudgesOnceForEveryView();
};

void SessionModelTest::stagesArriveInOrderAsOneSnapshot() {
    SessionLoader loader;
    loader.setSnapshotInterval(0);
    SessionModel model(&loader, kDefaultThreshold);
    QStringList order;
    std::shared_ptr<const Session> opened, completed;
    connect(&model, &SessionModel::opened, this, [&](std::shared_ptr<const Session> s, const QStringList&) {
        order << QStringLiteral("opened");
        opened = s;
        QCOMPARE(model.snapshot(), s); // what the signal carries is the model's snapshot
        QVERIFY(!s->complete);
    });
    connect(&model, &SessionModel::rowsMeasured, this,
            [&](std::shared_ptr<const Session> s, std::size_t first, std::size_t last) {
                if (order.isEmpty() || order.back() != QStringLiteral("measured"))
                    order << QStringLiteral("measured");
                QCOMPARE(model.snapshot(), s);
                QVERIFY(first <= last && last < s->comparison->rows.size());
            });
    connect(&model, &SessionModel::completed, this, [&](std::shared_ptr<const Session> s) {
        order << QStringLiteral("completed");
        completed = s;
    });
    QSignalSpy done(&model, &SessionModel::completed);
    loader.loadPaths({QStringLiteral(GAPSCOPE_DEMO_DIR)});
    QVERIFY(done.wait(30000));
    QCOMPARE(order.front(), QStringLiteral("opened"));
    QCOMPARE(order.back(), QStringLiteral("completed"));
    QVERIFY(completed && completed->complete && completed == model.snapshot());
    QVERIFY(opened != completed); // snapshots are immutable: a stage is a new one
    // Nothing rejudged without a change of threshold.
    QSignalSpy rejudged(&model, &SessionModel::rejudged);
    model.setThreshold(kDefaultThreshold);
    QCOMPARE(rejudged.size(), 0);
    QCOMPARE(model.snapshot(), completed); // judged by the same threshold: the same snapshot
}

void SessionModelTest::aThresholdRejudgesOnceForEveryView() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths({QStringLiteral(GAPSCOPE_DEMO_DIR)});
    QVERIFY(shown.wait(30000));
    SessionModel* model = window.sessionModel();
    const auto before = model->snapshot();
    QVERIFY(before && before->comparison);
    QSignalSpy rejudged(model, &SessionModel::rejudged);
    // A threshold every measured row crosses: the first divergence is row 0's.
    const MetricThreshold strict{Metric::Snr, 400.0};
    QSignalSpy changed(model, &SessionModel::thresholdChanged);
    window.sessionModel()->setThreshold(strict);
    QCOMPARE(rejudged.size(), 1);
    QCOMPARE(changed.size(), 1);
    // The editor shows the model's threshold: one owner (issue 57).
    QCOMPARE(window.inspector()->thresholdEditor()->threshold().value, 400.0);
    const auto after = model->snapshot();
    QVERIFY(after != before);
    QCOMPARE(after->threshold.value, 400.0);
    const auto expected = firstDivergence(*after->comparison, strict);
    QVERIFY(expected && after->first_divergence);
    QCOMPARE(after->first_divergence->row, expected->row);
    // One snapshot: the window's, the inspector's, the model's.
    QCOMPARE(window.session(), after);
    QCOMPARE(window.inspector()->session(), after);
    // The rows are the same: only the judgement changed.
    QCOMPARE(after->comparison->rows.size(), before->comparison->rows.size());
    // Shared, not copied: the rejudged snapshot points at the same row blocks.
    const Comparison& was = *before->comparison;
    const Comparison& now = *after->comparison;
    QCOMPARE(&now.rows[0], &was.rows[0]);
    QCOMPARE(&now.rows[now.rows.size() - 1], &was.rows[was.rows.size() - 1]);
}

QTEST_MAIN(SessionModelTest)
#include "tst_session_model.moc"
