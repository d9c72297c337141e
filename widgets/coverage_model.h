#pragma once

#include "core/session/session.h"

#include <QAbstractTableModel>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace gapscope {

// What was not compared and why (Comparison::coverage), then the timing's
// coverage (ComparisonLatency): timed events no row reads
// ("time_without_numbers") and rows without a time ("numbers_without_time").
class CoverageModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Kind, What, Handles, Reason, ColumnCount };
    explicit CoverageModel(QObject* parent = nullptr);
    void setSession(std::shared_ptr<const Session> session);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        QString kind, what, handles, reason;
    };
    Item item(std::size_t row) const;
    void indexTiming();

    std::shared_ptr<const Session> m_session;
    std::vector<std::size_t> m_untimedRows; // Comparison rows without a time
    // The timed events without numbers listed on their own: those the coverage
    // does not list already. A delegate's own event (XNNPACK's "Convolution
    // (NHWC, F32) IGEMM #1") is one item with its time (issue 56: listed twice).
    std::vector<std::size_t> m_timedOnly;
    std::vector<std::optional<std::size_t>> m_timeOfItem; // per coverage item: its timed_without_numerics
};

} // namespace gapscope
