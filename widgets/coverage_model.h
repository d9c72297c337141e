#pragma once

#include "core/session/session.h"

#include <QAbstractTableModel>
#include <memory>

namespace gapscope {

// What was not compared and why (Comparison::coverage), plus program outputs.
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
    std::shared_ptr<const Session> m_session;
};

} // namespace gapscope
