// The graph view's layout runs Graphviz's dot as a child process, so it can be
// abandoned: a cancel kills dot, and closing the view during a layout that would
// never finish returns at once (issue 24). A dot that never answers stands in
// for a many-thousand-node layout: only an abandonable layout returns at all.
#include "widgets/graph_layout.h"
#include "widgets/graph_view.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <set>
#include <thread>

using namespace gapscope;

namespace {

// a → b → c, b and c in one group (a delegate's ops); expanded, so framed.
OpGraph threeNodes() {
    OpGraph g;
    g.nodes = {{"a", "convolution", {1}, 0, -1, std::nullopt},
               {"b", "relu", {2}, 1, 0, std::nullopt},
               {"c", "add.Tensor", {3}, 2, 0, std::nullopt}};
    g.edges = {{0, 1}, {1, 2}};
    g.groups = {{2, "DELEGATE_CALL · 2 ops", {1, 2}}};
    return g;
}

// A "dot" that says it started, then never answers.
QString hangingDot(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("dot"));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write("#!/bin/sh\ntouch \"$0.started\"\nexec sleep 600\n");
    script.close();
    script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

} // namespace

class GraphLayoutTest : public QObject {
    Q_OBJECT
private slots:
    void dotLaysTheGraphOut();
    void aMissingDotIsNamed();
    void aCancelKillsDot();
    void closingTheViewDuringALayoutReturns();
};

void GraphLayoutTest::dotLaysTheGraphOut() {
    const auto layout = layoutOpGraph(threeNodes(), {false});
    QVERIFY2(layout, layout ? "" : layout.error().describe().c_str());
    const GraphLayout& l = layout.value();
    QCOMPARE(l.boxes.size(), std::size_t(3));
    QCOMPARE(l.edges.size(), std::size_t(2));
    QVERIFY(l.width > 0 && l.height > 0);
    // Top to bottom in execution order, every box inside the drawing.
    QVERIFY(l.boxes[0].y < l.boxes[1].y && l.boxes[1].y < l.boxes[2].y);
    for (const auto& b : l.boxes)
        QVERIFY(b.x >= 0 && b.x <= l.width && b.y >= 0 && b.y <= l.height);
    for (const auto& e : l.edges)
        QVERIFY(e.xy.size() >= 8 && e.xy.size() % 2 == 0); // at least one cubic Bézier
    // The expanded group is a frame around its two boxes.
    QCOMPARE(l.frames.size(), std::size_t(1));
    const auto& f = l.frames[0];
    QCOMPARE(f.group, 0);
    for (std::size_t b : {1, 2})
        QVERIFY(f.x0 < l.boxes[b].x && l.boxes[b].x < f.x1 && f.y0 < l.boxes[b].y && l.boxes[b].y < f.y1);
    // Collapsed, the group is one box standing for both nodes.
    const auto collapsed = layoutOpGraph(threeNodes(), {true});
    QVERIFY(collapsed);
    QCOMPARE(collapsed.value().boxes.size(), std::size_t(2));
    QCOMPARE(collapsed.value().boxes[1].nodes, (std::vector<std::size_t>{1, 2}));
    QVERIFY(collapsed.value().frames.empty());
}

void GraphLayoutTest::aMissingDotIsNamed() {
    GraphLayoutOptions options;
    options.dot = "/nonexistent/gapscope-dot";
    const auto layout = layoutOpGraph(threeNodes(), {false}, nullptr, options);
    QVERIFY(!layout);
    const std::string message = layout.error().describe();
    QVERIFY2(message.find("/nonexistent/gapscope-dot") != std::string::npos, message.c_str());
    QVERIFY2(message.find("graphviz") != std::string::npos, message.c_str());
}

void GraphLayoutTest::aCancelKillsDot() {
    QTemporaryDir dir;
    GraphLayoutOptions options;
    options.dot = hangingDot(dir).toStdString();
    const QString started = QString::fromStdString(options.dot) + QStringLiteral(".started");
    std::atomic<bool> cancelled{false};
    // Cancelled once dot is running, mid-layout: the layout must come back.
    std::thread canceller([&] {
        while (!QFileInfo::exists(started))
            std::this_thread::yield();
        cancelled = true;
    });
    const auto layout = layoutOpGraph(threeNodes(), {false}, &cancelled, options);
    canceller.join();
    QVERIFY(!layout);
    QCOMPARE(layout.error().code, ErrorCode::Cancelled);
}

void GraphLayoutTest::closingTheViewDuringALayoutReturns() {
    QTemporaryDir dir;
    const QString dot = hangingDot(dir);
    qputenv("GAPSCOPE_DOT", dot.toLocal8Bit());
    auto view = std::make_unique<GraphView>();
    view->resize(400, 300);
    view->show();
    view->setGraph(threeNodes());
    QVERIFY(view->layoutPending());
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(dot + QStringLiteral(".started")), 20000);
    view.reset(); // cancels its layout job and waits for it: dot is killed, not awaited
    qunsetenv("GAPSCOPE_DOT");
}

QTEST_MAIN(GraphLayoutTest)
#include "tst_graph_layout.moc"
