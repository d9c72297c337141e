#pragma once

#include "core/session/session.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace gapscope {

// The Profile tab: every timed event of the ETDump as ExecuTorch's Inspector
// tabulates it (Inspector.to_dataframe(): block, event, p10, p50, p90, avg,
// min, max, delegate), from the session's ProfileTable; events without
// profiling are left out. Numbers sort by value (SortRole) and copy at full
// precision (kCopyTextRole). Read-only, from the snapshot.
class ProfileModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Block, Event, P10, P50, P90, Avg, Min, Max, Runs, Delegate, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit ProfileModel(QObject* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // "154 events in 2 blocks, ms"; why there is nothing, otherwise.
    QString summary() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Ref {
        std::size_t block, event;
    };
    std::shared_ptr<const ProfileTable> m_table;
    std::vector<Ref> m_rows;
};

} // namespace gapscope
