// The tensor panel's details (scatter, histogram, worst elements) read a row's
// values through ElementReader, so they show what the metrics compared. A side
// holding a NaN is compared after nan_to_num, as ExecuTorch does: the details
// then plot no NaN hole, rank the converted value among the worst elements,
// and say in words that the values were converted (issue 24).
#include "widgets/scatter_sprite.h"
#include "widgets/stacked_scatter_graph.h"
#include "widgets/tensor_details.h"

#include <QtTest>
#include <cmath>
#include <limits>
#include <vector>

using namespace gapscope;

namespace {

struct Pair {
    std::vector<float> ref, dev;
    ElementPlan plan;
    Pair(std::vector<float> r, std::vector<float> d) : ref(std::move(r)), dev(std::move(d)) {
        const auto n = ref.size();
        plan.reference = Operand::tensor(ScalarType::Float, {2, static_cast<std::int64_t>(n / 2)},
                                         {reinterpret_cast<const std::uint8_t*>(ref.data()), 4 * n}, n);
        plan.runtime = Operand::tensor(ScalarType::Float, {2, static_cast<std::int64_t>(n / 2)},
                                       {reinterpret_cast<const std::uint8_t*>(dev.data()), 4 * n}, n);
    }
};

} // namespace

class TensorDetailsTest : public QObject {
    Q_OBJECT
private slots:
    void aNanIsShownAsTheMetricsComparedIt();
    void finiteTensorsSayNothingAboutNan();
    void aDenseScatterLooksAsDrawnPointByPoint();
};

void TensorDetailsTest::aNanIsShownAsTheMetricsComparedIt() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Pair p({1, 2, 3, 4, 5, 6}, {1, 2.1f, nan, 4, 5, 6.2f});
    const TensorDetails d = computeDetails(p.plan, 100);
    QVERIFY(d.nonFinite.contains(QStringLiteral("The runtime holds NaN")));
    QVERIFY(d.nonFinite.contains(QStringLiteral("nan_to_num")));
    QCOMPARE(d.xs.size(), 6);
    for (double y : d.ys)
        QVERIFY(std::isfinite(y)); // the NaN compared as 0, plotted as 0
    // The worst element is the NaN, compared as 0 against 3: Δ 3.
    QVERIFY(!d.worst.isEmpty());
    QVERIFY2(d.worst.front().startsWith(QStringLiteral("[0, 2] ref 3  runtime 0  Δ 3")),
             qPrintable(d.worst.front()));
}

void TensorDetailsTest::finiteTensorsSayNothingAboutNan() {
    Pair p({1, 2, 3, 4, 5, 6}, {1, 2.1f, 3, 4, 5, 6.2f});
    const TensorDetails d = computeDetails(p.plan, 100);
    QVERIFY(d.nonFinite.isEmpty());
    QVERIFY(d.worst.front().startsWith(QStringLiteral("[1, 2]")));
}

// The scatter's points that land on one pixel are blitted once, as opaque as
// their number of blits: the picture is the one point-by-point drawing makes.
void TensorDetailsTest::aDenseScatterLooksAsDrawnPointByPoint() {
    // 65,536 points as a quantised tensor gives them: 256 reference levels, the
    // runtime a few steps off, a few far off; sorted by key as computeDetails sorts.
    QVector<double> xs, ys;
    for (int i = 0; i < 65536; ++i) {
        const double x = (i / 256) / 128.0 - 1.0;
        xs << x;
        ys << x + ((i * 7919) % 9 - 4) / 256.0 + (i % 997 == 0 ? 0.3 : 0.0);
    }
    const QCPScatterStyle sprite =
        scatterSprite(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(40, 90, 170, 140), 3));
    const auto draw = [&](bool stack, const QCPScatterStyle& style) {
        QCustomPlot plot;
        QCPGraph* g = stack ? new StackedScatterGraph(plot.xAxis, plot.yAxis) : plot.addGraph();
        g->setData(xs, ys, true);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(style);
        g->setAdaptiveSampling(false);
        plot.rescaleAxes();
        return plot.toPixmap(420, 300).toImage().convertToFormat(QImage::Format_ARGB32);
    };
    const QImage each = draw(false, sprite), stacked = draw(true, sprite);
    QCOMPARE(stacked.size(), each.size());
    QVERIFY(stacked != each); // stacked: not drawn point by point (its edges have no fringes)
    // Compared by lightness: blitted one by one, a sprite's faint edge pixels
    // (their colour a few levels of premultiplied alpha can hold) pile up into
    // purple and cyan fringes; stacked, they are the sprite's own blue. How
    // much ink each pixel holds is the same.
    const auto luma = [](QRgb c) { return 0.299 * qRed(c) + 0.587 * qGreen(c) + 0.114 * qBlue(c); };
    double worst = 0;
    int inked = 0;
    for (int y = 0; y < each.height(); ++y)
        for (int x = 0; x < each.width(); ++x) {
            const QRgb a = each.pixel(x, y), b = stacked.pixel(x, y);
            worst = std::max(worst, std::abs(luma(a) - luma(b)));
            inked += qBlue(a) != qRed(a); // the points' blue, not the white or grey of the frame
        }
    QVERIFY2(inked > 2000, qPrintable(QString::number(inked)));
    QVERIFY2(worst <= 10, // 7.4 here; blitting each place once, unstacked, is 128 apart
             qPrintable(QStringLiteral("%1 levels of lightness apart at worst").arg(worst)));

    // A sprite of two colours (a white disc in a blue ring) would depend on the
    // order of its blits: drawn point by point, the very same picture.
    const QCPScatterStyle ringed =
        scatterSprite(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(40, 90, 170), Qt::white, 7));
    QCOMPARE(draw(true, ringed), draw(false, ringed));

    // Every point drawn is counted once, in far fewer blits than points.
    QVector<QPointF> points;
    for (int i = 0; i < xs.size(); ++i)
        points << QPointF(xs[i] * 150 + 200, ys[i] * 100 + 150);
    const auto stacks = StackedScatterGraph::stacks(points, QSize(7, 7), QRectF(0, 0, 420, 300));
    int counted = 0;
    for (const auto& s : stacks)
        counted += s.count;
    QCOMPARE(counted, points.size());
    QVERIFY2(stacks.size() * 10 < static_cast<std::size_t>(points.size()),
             qPrintable(QString::number(stacks.size())));
    // A point whose sprite cannot reach the clip is not drawn, nor counted.
    QVERIFY(
        StackedScatterGraph::stacks({QPointF(-50, 10), QPointF(10, 10)}, QSize(7, 7), QRectF(0, 0, 20, 20))
            .size() == 1);
}

QTEST_MAIN(TensorDetailsTest)
#include "tst_tensor_details.moc"
