#pragma once

#include "core/session/session.h"

#include <QAbstractTableModel>
#include <memory>
#include <vector>

namespace gapscope {

// Every event of an ETDump, run by run: what a session without a comparison
// (an ETDump alone, or without its capture) still shows. Read-only, from the
// snapshot; sorts on numbers through SortRole.
class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Run, Index, Kind, Name, Instruction, DelegateId, DurationUs, Output, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1 };

    explicit EventTableModel(QObject* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // "2 runs, 29 events: 14 operator calls, 13 debug values"
    QString summary() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Ref {
        std::size_t run, event;
    };
    std::shared_ptr<const Session> m_session;
    std::vector<Ref> m_rows;
};

} // namespace gapscope
