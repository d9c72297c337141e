// The app as a first-time user meets it (issue 12): opening every kind of file
// the obvious ways, shortcuts that work whatever has focus, a window that fits
// a laptop, the threshold where it acts, actions that say why they cannot run,
// and an ETDump alone still showing what it holds.

#include "app/gui/app_settings.h"
#include "app/gui/comparison_selectors.h"
#include "app/gui/debug_buffer_picker.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/window_actions.h"
#include "core/compare/findings.h"
#include "gui_test_support.h"
#include "widgets/event_browser.h"
#include "widgets/event_table_model.h"
#include "widgets/gap_chart.h"
#include "widgets/graph_view.h"
#include "widgets/op_filter_proxy.h"
#include "widgets/op_table_model.h"
#include "widgets/tensor_panel.h"
#include "widgets/threshold_editor.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace gapscope;
using namespace gapscope::test;

namespace {

const QDir kDemo(QStringLiteral(GAPSCOPE_DEMO_DIR));

} // namespace

class DailyUseTest : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QSettings().clear();
        AppSettings().setThreshold({Metric::Snr, 20.0});
    }
    void aSavedSessionOpensEveryWay();
    void droppedFoldersAndSessionFilesOpen();
    void anExecuTorchFolderOpens();
    void aDroppedOrPickedDebugBufferFillsTheSlot();
    void shortcutsWinOverTheFilterBox();
    void theWindowFitsALaptop();
    void theThresholdIsShownEditedAndDrawn();
    void actionsSayWhyTheyCannotRun();
    void theTableIsOneTabStop();
    void anEtdumpAloneIsBrowsable();
    void severalCapturesAreNamedAndSwitchable();
    void metricColumnsSortWorstFirst();
    void theWindowSizeIsRemembered();
    void theGraphViewShowsTheReferenceGraph();
    void aFiveThousandNodeGraphStaysUsable();
};

void DailyUseTest::aSavedSessionOpensEveryWay() {
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("my.gapscope.json"));
    std::size_t rows = 0;
    {
        MainWindow window;
        window.openPaths(demoFiles());
        QVERIFY(waitShown(window));
        rows = window.session()->comparison->rows.size();
        QVERIFY(window.saveSession(saved));
    }
    // What File → Open and `gapscope my.gapscope.json` do: openPaths with the file.
    MainWindow window;
    window.openPaths({saved});
    QVERIFY(waitShown(window));
    QVERIFY(window.session()->comparison);
    QCOMPARE(window.session()->comparison->rows.size(), rows);
    QCOMPARE(window.controller()->sessionFile(), saved);
    QVERIFY(window.session()->debug_buffer_file); // not taken for the debug buffer
    QCOMPARE(QString::fromStdString(window.session()->debug_buffer_file->path()),
             kDemo.filePath(QStringLiteral("run.debug.bin")));
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("my — ")));
    // The recent list offers it once, by its file.
    QCOMPARE(AppSettings().recentSessions().front(), QStringList{saved});
    // An unreadable one says so in the banner.
    QFile bad(dir.filePath(QStringLiteral("bad.json")));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"gapscope_session\": 1, \"files\": 3}");
    bad.close();
    window.openPaths({bad.fileName()});
    QVERIFY(!window.banner()->isHidden());
}

void DailyUseTest::droppedFoldersAndSessionFilesOpen() {
    MainWindow window;
    window.show();
    // A folder.
    QVERIFY(drop(window, {kDemo.path()}));
    QVERIFY(waitShown(window));
    QVERIFY(window.session()->comparison);
    // A saved session file.
    QTemporaryDir dir;
    const QString saved = dir.filePath(QStringLiteral("s.gapscope.json"));
    QVERIFY(window.saveSession(dir.filePath(QStringLiteral("s.json")))); // the extension is completed
    MainWindow other;
    other.show();
    QVERIFY(drop(other, {saved}));
    QVERIFY(waitShown(other));
    QCOMPARE(other.controller()->sessionFile(), saved);
    QCOMPARE(other.session()->comparison->rows.size(), window.session()->comparison->rows.size());
}

void DailyUseTest::shortcutsWinOverTheFilterBox() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.openDemo();
    QVERIFY(waitShown(window));
    // After a load the keys go to the table, not the filter box.
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(window.inspector()->opView()));
    auto* filter = window.findChild<QLineEdit*>(QStringLiteral("opFilter"));
    QVERIFY(filter);
    filter->setFocus();
    QVERIFY(filter->hasFocus());
    // The line edit would claim Ctrl+E ("end of line" on X11); the window's action wins.
    QKeyEvent override(QEvent::ShortcutOverride, Qt::Key_E, Qt::ControlModifier);
    override.setAccepted(false);
    QCoreApplication::sendEvent(filter, &override);
    QVERIFY(!override.isAccepted());
    // Pressed for real: the export runs (its file dialog opens; close it).
    QSignalSpy exported(window.actions()->exportCsv(), &QAction::triggered);
    QTimer::singleShot(300, [] {
        if (QWidget* modal = QApplication::activeModalWidget())
            modal->close();
    });
    QTest::keyClick(filter, Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(exported.count(), 1);
    QVERIFY2(filter->text().isEmpty(), qPrintable(filter->text())); // nothing typed into the filter
    // Plain typing still goes to the filter.
    QTest::keyClicks(filter, QStringLiteral("conv"));
    QCOMPARE(filter->text(), QStringLiteral("conv"));
}

void DailyUseTest::theWindowFitsALaptop() {
    MainWindow window;
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    // A long op list (a fused group) must not widen the window.
    window.inspector()->selectRow(std::size_t{0});
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 720 - 30, // a title bar on a 1280x720 screen
             qPrintable(QStringLiteral("%1x%2").arg(minimum.width()).arg(minimum.height())));
    window.resize(minimum);
    // The table still shows eight rows, once the layout has taken the new size.
    QTableView* table = window.inspector()->opView();
    QTRY_COMPARE(window.size(), minimum);
    QTRY_VERIFY(table->viewport()->height() >=
                InspectorView::kMinTableRows * table->verticalHeader()->defaultSectionSize());
}

void DailyUseTest::theThresholdIsShownEditedAndDrawn() {
    MainWindow window;
    window.resize(1280, 720);
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    ThresholdEditor* editor = window.inspector()->thresholdEditor();
    QCOMPARE(editor->metricBox()->currentText(), QStringLiteral("SNR dB"));
    QCOMPARE(editor->valueBox()->value(), 20.0);
    QVERIFY(!editor->toolTip().isEmpty());
    QVERIFY(!window.session()->first_divergence); // every demo op is above 20 dB
    // Raising it to 45 dB: ops fall below, the first divergence and the filter follow.
    editor->valueBox()->setValue(45.0);
    QCOMPARE(window.session()->threshold.value, 45.0);
    QVERIFY(window.session()->first_divergence);
    const auto expected = firstDivergence(*window.session()->comparison, {Metric::Snr, 45.0});
    QCOMPARE(window.session()->first_divergence->row, expected->row);
    editor->filterBox()->setChecked(true);
    int past = 0;
    for (const auto& r : window.session()->comparison->rows)
        past += crossesThreshold(r, {Metric::Snr, 45.0});
    QCOMPARE(window.inspector()->opProxy()->rowCount(), past);
    QCOMPARE(AppSettings().threshold().value, 45.0); // remembered
    // The chart (rel. L2 by default) draws it: 45 dB is rel. L2 10^(-45/20).
    QCustomPlot* chart = window.inspector()->chart()->plot();
    bool line = false;
    for (int i = 0; i < chart->itemCount(); ++i)
        if (auto* l = qobject_cast<QCPItemStraightLine*>(chart->item(i)))
            line = line || std::fabs(l->point1->coords().y() - std::pow(10.0, -45.0 / 20)) < 1e-12;
    QVERIFY(line);
    // On MSE, which has no equivalent value, the ops past it are marked instead.
    window.inspector()->chart()->setMetric(Metric::Mse);
    bool marked = false;
    for (int i = 0; i < chart->graphCount(); ++i)
        marked = marked || (chart->graph(i)->name().startsWith(QStringLiteral("past the threshold")) &&
                            chart->graph(i)->dataCount() == past);
    QVERIFY(marked);
}

void DailyUseTest::actionsSayWhyTheyCannotRun() {
    MainWindow window;
    WindowActions* actions = window.actions();
    // Nothing open.
    QVERIFY(!actions->exportCsv()->isEnabled());
    QVERIFY(actions->exportCsv()->toolTip().contains(QStringLiteral("Open a session")));
    QVERIFY(!actions->exportReport()->isEnabled());
    QVERIFY(!actions->reload()->isEnabled());
    // The built-in demo: exports yes, saving no (no files to list).
    window.openDemo();
    QVERIFY(waitShown(window));
    QVERIFY(actions->exportCsv()->isEnabled());
    QVERIFY(actions->exportReport()->isEnabled());
    QVERIFY(!actions->saveSession()->isEnabled());
    QVERIFY(actions->saveSession()->toolTip().contains(QStringLiteral("demo")));
    QVERIFY(actions->reload()->isEnabled());
    QCOMPARE(actions->reload()->shortcut(), QKeySequence(Qt::Key_F5));
    // Reload loads it again.
    actions->reload()->trigger();
    QVERIFY(waitShown(window));
    QVERIFY(window.session()->complete);
    // Every shortcut is unique.
    QSet<QString> seen;
    for (QAction* a : actions->all())
        if (!a->shortcut().isEmpty()) {
            QVERIFY2(!seen.contains(a->shortcut().toString()), qPrintable(a->shortcut().toString()));
            seen << a->shortcut().toString();
        }
}

void DailyUseTest::theTableIsOneTabStop() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.openDemo();
    QVERIFY(waitShown(window));
    QTableView* table = window.inspector()->opView();
    QVERIFY(!table->tabKeyNavigation());
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Tab);
    QVERIFY(!table->hasFocus()); // Tab left the table: the panel and chart are reachable
    // Ctrl+1 brings the keys back to the table.
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_1, Qt::ControlModifier);
    QVERIFY(table->hasFocus());
}

void DailyUseTest::anEtdumpAloneIsBrowsable() {
    QTemporaryDir dir;
    const QString etdp = dir.filePath(QStringLiteral("run.etdp"));
    QVERIFY(QFile::copy(kDemo.filePath(QStringLiteral("run.etdp")), etdp));
    QVERIFY(QFile::copy(kDemo.filePath(QStringLiteral("run.debug.bin")),
                        dir.filePath(QStringLiteral("run.debug.bin"))));
    MainWindow window;
    window.show();
    window.openPaths({etdp}); // the debug buffer beside it comes along
    QVERIFY(waitShown(window));
    QVERIFY(window.session()->dump && !window.session()->comparison);
    QVERIFY(window.session()->debug_buffer_file);
    EventBrowser* events = window.eventBrowser();
    QVERIFY(events->isVisible());
    QAbstractItemModelTester tester(events->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    std::size_t total = 0;
    for (const auto& run : window.session()->dump->runs)
        total += run.events.size();
    QCOMPARE(static_cast<std::size_t>(events->model()->rowCount()), total);
    QVERIFY(events->summary().contains(QStringLiteral("ETRecord"))); // what to add
    QVERIFY(events->summary().contains(QStringLiteral("AOT capture")));
    // Sorting on durations is numeric.
    events->view()->sortByColumn(EventTableModel::DurationUs, Qt::DescendingOrder);
    auto* proxy = events->view()->model();
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, EventTableModel::DurationUs).data(EventTableModel::SortRole).toDouble() >=
                proxy->index(r, EventTableModel::DurationUs).data(EventTableModel::SortRole).toDouble());
}

void DailyUseTest::severalCapturesAreNamedAndSwitchable() {
    // The demo folder holds two captures of forward: the ETRecord graph's (PT2E)
    // and the float model's.
    MainWindow window;
    window.show();
    window.openPaths({kDemo.path()});
    QVERIFY(waitShown(window));
    QVERIFY(window.inspector()->warningBanner()->text().contains(QStringLiteral("several captures")));
    QComboBox* captures = window.inspector()->captureSelector();
    QVERIFY(captures->isVisible());
    QCOMPARE(captures->count(), 2);
    const QString first = QString::fromStdString(window.session()->capture_file->path());
    const int other = captures->currentIndex() == 0 ? 1 : 0;
    emit captures->activated(other);
    QVERIFY(waitShown(window));
    QVERIFY(QString::fromStdString(window.session()->capture_file->path()) != first);
    QCOMPARE(captures->currentIndex(), other);
}

void DailyUseTest::metricColumnsSortWorstFirst() {
    MainWindow window;
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    QHeaderView* header = window.inspector()->opView()->horizontalHeader();
    auto click = [&](int column) {
        const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2,
                        header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    };
    auto firstRowValue = [&](int column) {
        return window.inspector()->opProxy()->index(0, column).data(OpTableModel::SortRole).toDouble();
    };
    auto extreme = [&](int column, bool max) {
        double v = firstRowValue(column);
        for (int r = 0; r < window.inspector()->opProxy()->rowCount(); ++r) {
            const double x =
                window.inspector()->opProxy()->index(r, column).data(OpTableModel::SortRole).toDouble();
            v = max ? std::max(v, x) : std::min(v, x);
        }
        return v;
    };
    header->setSectionHidden(OpTableModel::AotOps, true); // keep the metric headers in view
    header->setSectionHidden(OpTableModel::RuntimeOps, true);
    click(OpTableModel::column(Metric::Mse));
    QCOMPARE(firstRowValue(OpTableModel::column(Metric::Mse)),
             extreme(OpTableModel::column(Metric::Mse), true)); // the largest error first
    click(OpTableModel::column(Metric::Snr));
    QCOMPARE(firstRowValue(OpTableModel::column(Metric::Snr)),
             extreme(OpTableModel::column(Metric::Snr), false)); // the lowest SNR first
    click(OpTableModel::column(Metric::Snr));
    QCOMPARE(firstRowValue(OpTableModel::column(Metric::Snr)),
             extreme(OpTableModel::column(Metric::Snr), true)); // a second click flips
}

void DailyUseTest::theWindowSizeIsRemembered() {
    {
        MainWindow window;
        window.show();
        window.resize(1111, 700);
        QTRY_COMPARE(window.size(), QSize(1111, 700));
    }
    {
        MainWindow again;
        QVERIFY(again.restoredGeometry());
        QCOMPARE(again.size(), QSize(1111, 700));
        QCOMPARE(again.screen()->availableGeometry().size(), QSize(1920, 1080)); // the configured screen
        // Saved on a larger screen: it comes back within this one, title bar included.
        again.setGeometry(100, 900, 2500, 1500);
    }
    MainWindow clamped;
    QVERIFY(clamped.restoredGeometry());
    const QRect available = clamped.screen()->availableGeometry();
    QVERIFY2(available.contains(clamped.geometry()), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                                    .arg(clamped.geometry().x())
                                                                    .arg(clamped.geometry().y())
                                                                    .arg(clamped.width())
                                                                    .arg(clamped.height())));
    QVERIFY(clamped.geometry().top() >= available.top() + 32); // room for the title bar above
}

void DailyUseTest::theGraphViewShowsTheReferenceGraph() {
    MainWindow window;
    window.resize(1280, 900);
    window.show();
    window.openDemo();
    QVERIFY(waitShown(window));
    GraphView* graph = window.inspector()->graphView();
    // Not laid out while its tab is hidden: no Graphviz run nobody looks at.
    QVERIFY(!graph->layoutPending() && graph->layout().boxes.empty());
    window.inspector()->showTab(2);
    QTRY_VERIFY_WITH_TIMEOUT(!graph->layoutPending(), 20000);
    const OpGraph& g = graph->graph();
    QVERIFY(!g.nodes.empty());
    QCOMPARE(graph->layout().boxes.size(), g.nodes.size()); // a small graph starts expanded
    // Every row is a node; the demo's delegate calls cover several nodes: groups.
    for (const auto& r : window.session()->comparison->rows)
        QVERIFY2(graph->boxOfRow(r.index) >= 0, qPrintable(QString::number(r.index)));
    QVERIFY(!g.groups.empty());
    // Boxes do not overlap.
    const auto& boxes = graph->layout().boxes;
    for (std::size_t a = 0; a < boxes.size(); ++a)
        for (std::size_t b = a + 1; b < boxes.size(); ++b)
            QVERIFY(std::fabs(boxes[a].x - boxes[b].x) * 2 >= boxes[a].w + boxes[b].w - 1 ||
                    std::fabs(boxes[a].y - boxes[b].y) * 2 >= boxes[a].h + boxes[b].h - 1);
    // Selecting a row centres its node.
    const std::size_t last = window.session()->comparison->rows.size() - 1;
    window.inspector()->selectRow(last);
    const auto& box = boxes[static_cast<std::size_t>(graph->boxOfRow(last))];
    const QPointF centre = graph->view()->mapToScene(graph->view()->viewport()->rect().center());
    QVERIFY(std::fabs(centre.y() - box.y) < 40 ||
            graph->view()->verticalScrollBar()->value() == graph->view()->verticalScrollBar()->maximum());
    // Clicking a node selects its row everywhere.
    const int zero = graph->boxOfRow(0);
    const QPoint at = graph->view()->mapFromScene(
        QPointF(boxes[static_cast<std::size_t>(zero)].x, boxes[static_cast<std::size_t>(zero)].y));
    QTest::mouseClick(graph->view()->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QCOMPARE(window.inspector()->tensorPanel()->row(), std::optional<std::size_t>(0));
    // Collapsing the groups: one box each, laid out again off the UI thread.
    graph->setCollapsed(-1, true);
    QVERIFY(graph->layoutPending());
    QTRY_VERIFY_WITH_TIMEOUT(!graph->layoutPending(), 20000);
    std::size_t grouped = 0;
    for (const auto& grp : g.groups)
        grouped += grp.nodes.size();
    QCOMPARE(graph->layout().boxes.size(), g.nodes.size() - grouped + g.groups.size());
    // Search finds a node by its op.
    QVERIFY(graph->find(QStringLiteral("layer_norm")));
    QVERIFY(!graph->find(QStringLiteral("no-such-op")));
    // The minimap sits in the view's bottom-right corner.
    const QRect area = graph->view()->viewport()->geometry();
    QVERIFY(graph->minimap()->isVisible());
    QVERIFY(graph->minimap()->geometry().right() <= area.right());
    QVERIFY(graph->minimap()->geometry().right() > area.center().x());
    // Exports.
    QTemporaryDir dir;
    QCOMPARE(graph->exportTo(dir.filePath(QStringLiteral("g.svg"))), QString());
    QCOMPARE(graph->exportTo(dir.filePath(QStringLiteral("g.png"))), QString());
    QVERIFY(!QImage(dir.filePath(QStringLiteral("g.png"))).isNull());
    QFile svg(dir.filePath(QStringLiteral("g.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly) && svg.readAll().contains("<svg"));
}

// 5,000 nodes in 500 delegate groups of ten, a chain with skip connections.
void DailyUseTest::aFiveThousandNodeGraphStaysUsable() {
    OpGraph g;
    for (std::size_t i = 0; i < 5000; ++i) {
        g.nodes.push_back({"op_" + std::to_string(i),
                           i % 3 ? "convolution" : "add.Tensor",
                           {},
                           i,
                           static_cast<int>(i / 10),
                           std::nullopt});
        if (i > 0)
            g.edges.emplace_back(i - 1, i);
        if (i > 5 && i % 7 == 0)
            g.edges.emplace_back(i - 5, i);
    }
    for (std::size_t k = 0; k < 500; ++k) {
        OpGraphGroup group{k * 10, "DELEGATE_CALL · 10 ops", {}};
        for (std::size_t i = k * 10; i < k * 10 + 10; ++i)
            group.nodes.push_back(i);
        g.groups.push_back(group);
    }
    GraphView view;
    view.resize(1000, 700);
    view.show();
    view.setGraph(g);
    QTRY_VERIFY_WITH_TIMEOUT(!view.layoutPending(), 30000);
    QCOMPARE(view.layout().boxes.size(), std::size_t{500}); // collapsed: one box per group
    QVERIFY(view.view()->transform().m11() >= 0.35);        // readable, not fitted to a speck
    // Expanding one group shows its ten ops.
    view.setCollapsed(42, false);
    QTRY_VERIFY_WITH_TIMEOUT(!view.layoutPending(), 30000);
    QCOMPARE(view.layout().boxes.size(), std::size_t{509});
    QCOMPARE(view.layout().frames.size(), std::size_t{1});
    // Search reaches a node inside a collapsed group, and a row finds its box.
    QVERIFY(view.find(QStringLiteral("op_4321")));
    QVERIFY(view.boxOfRow(4321) >= 0);
    // A newer layout supersedes a running one: only the last shows.
    view.setCollapsed(-1, false);
    view.setCollapsed(-1, true);
    QTRY_VERIFY_WITH_TIMEOUT(!view.layoutPending(), 60000);
    QCOMPARE(view.layout().boxes.size(), std::size_t{500});
}

namespace {

// tests/data/executorch_layout copied into `dir`: a folder as ExecuTorch leaves it.
bool copyLayout(const QTemporaryDir& dir) {
    const QDir layout(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/executorch_layout"));
    for (const auto& name : layout.entryList(QDir::Files))
        if (!QFile::copy(layout.filePath(name), dir.filePath(name)))
            return false;
    return true;
}

} // namespace

void DailyUseTest::anExecuTorchFolderOpens() {
    // etdump.etdp, debug_output.bin, model.pte, etrecord.bin, inputs.pt and a capture,
    // dropped as a folder: every file told by content, the program and inputs not
    // taken for the debug buffer, every row measured.
    QTemporaryDir dir;
    QVERIFY(copyLayout(dir));
    MainWindow window;
    window.show();
    QVERIFY(drop(window, {dir.path()}));
    QVERIFY(waitShown(window));
    QVERIFY2(window.banner()->isHidden(), qPrintable(window.banner()->text()));
    QVERIFY(window.debugBufferPicker()->isHidden());
    const auto session = window.session();
    QVERIFY(session->debug_buffer_file);
    QVERIFY(QString::fromStdString(session->debug_buffer_file->path())
                .endsWith(QStringLiteral("debug_output.bin")));
    QVERIFY(session->comparison);
    for (const auto& row : session->comparison->rows)
        QVERIFY(row.status != RowStatus::MissingData);
}

void DailyUseTest::aDroppedOrPickedDebugBufferFillsTheSlot() {
    QTemporaryDir dir;
    QVERIFY(copyLayout(dir));
    // Two files with no name to tell them by: the banner asks, the picker lists both.
    QVERIFY(QFile::rename(dir.filePath(QStringLiteral("debug_output.bin")),
                          dir.filePath(QStringLiteral("a.bin"))));
    QFile other(dir.filePath(QStringLiteral("b.bin")));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write(QByteArray("\x01\x00\x80\x3f\xff\x00\x00\x00", 8));
    other.close();
    MainWindow window;
    window.show();
    QVERIFY(drop(window, {dir.path()}));
    QVERIFY(waitShown(window));
    QVERIFY(window.banner()->text().contains(QStringLiteral("debug buffer missing: 2 files could be it")));
    QVERIFY(!window.debugBufferPicker()->isHidden());
    auto buttons =
        window.debugBufferPicker()->findChildren<QPushButton*>(QStringLiteral("debugBufferCandidate"));
    QCOMPARE(buttons.size(), 2);
    QCOMPARE(buttons.at(0)->text(), QStringLiteral("a.bin"));

    // Dropping one on the banner that asks for it fills the slot.
    QVERIFY(drop(window, {dir.filePath(QStringLiteral("a.bin"))}));
    QVERIFY(waitShown(window));
    QVERIFY2(window.banner()->isHidden(), qPrintable(window.banner()->text()));
    QVERIFY(window.debugBufferPicker()->isHidden());
    QVERIFY(QString::fromStdString(window.session()->debug_buffer_file->path())
                .endsWith(QStringLiteral("a.bin")));
    for (const auto& row : window.session()->comparison->rows)
        QVERIFY(row.status != RowStatus::MissingData);

    // From the folder alone again, a click on a button picks the file.
    MainWindow fresh;
    fresh.show();
    QVERIFY(drop(fresh, {dir.path()}));
    QVERIFY(waitShown(fresh));
    buttons = fresh.debugBufferPicker()->findChildren<QPushButton*>(QStringLiteral("debugBufferCandidate"));
    QCOMPARE(buttons.size(), 2);
    QTest::mouseClick(buttons.at(0), Qt::LeftButton);
    QVERIFY(waitShown(fresh));
    QVERIFY(fresh.debugBufferPicker()->isHidden());
    QVERIFY(
        QString::fromStdString(fresh.session()->debug_buffer_file->path()).endsWith(QStringLiteral("a.bin")));
    QVERIFY(fresh.session()->comparison);
    QCOMPARE(fresh.session()->comparison->rows.front().status, RowStatus::Ok);
}

QTEST_MAIN(DailyUseTest)
#include "tst_daily_use.moc"
