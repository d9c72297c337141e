// The tensor panel's details (scatter, histogram, worst elements) read a row's
// values through ElementReader, so they show what the metrics compared. A side
// holding a NaN is compared after nan_to_num, as ExecuTorch does: the details
// then plot no NaN hole, rank the converted value among the worst elements,
// and say in words that the values were converted (issue 24).
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

QTEST_MAIN(TensorDetailsTest)
#include "tst_tensor_details.moc"
