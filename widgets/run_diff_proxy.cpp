#include "widgets/run_diff_proxy.h"

#include "widgets/run_diff_model.h"

#include <cmath>

namespace gapscope {

RunDiffProxy::RunDiffProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunDiffModel::SortRole);
}

void RunDiffProxy::setWorseThan(std::optional<double> margin) {
    m_margin = margin;
    invalidateFilter();
}

void RunDiffProxy::setShowUnpaired(bool show) {
    m_showUnpaired = show;
    invalidateFilter();
}

bool RunDiffProxy::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
    const auto* model = qobject_cast<const RunDiffModel*>(sourceModel());
    if (!model)
        return true;
    if (!model->paired(sourceRow))
        return m_showUnpaired && !m_margin;
    if (!m_margin)
        return true;
    const auto worse = model->worseBy(sourceRow);
    return worse && *worse > *m_margin;
}

bool RunDiffProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const auto* model = qobject_cast<const RunDiffModel*>(sourceModel());
    if (model && left.column() == right.column()) {
        const auto l = model->sortNumber(left.row(), left.column()),
                   r = model->sortNumber(right.row(), right.column());
        if (l && r)
            return numberLess(*l, *r);
    }
    const QVariant l = left.data(RunDiffModel::SortRole), r = right.data(RunDiffModel::SortRole);
    if (l.typeId() == QMetaType::QString || r.typeId() == QMetaType::QString)
        return QString::localeAwareCompare(l.toString(), r.toString()) < 0;
    return numberLess(l.toDouble(), r.toDouble());
}

bool RunDiffProxy::numberLess(double a, double b) const {
    // A missing value (NaN) sorts after every number, whichever the order.
    if (std::isnan(a) || std::isnan(b))
        return !std::isnan(a) && std::isnan(b)
                   ? sortOrder() == Qt::AscendingOrder
                   : (std::isnan(a) && !std::isnan(b) ? sortOrder() == Qt::DescendingOrder : false);
    return a < b;
}

} // namespace gapscope
