#pragma once

#include "core/session/session.h"

#include <QWidget>
#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gapscope {

class EventTableModel;

// A session with an ETDump but no comparison: what was read (runs, events,
// what each logged), sortable, with what is missing to compare said above it.
class EventBrowser : public QWidget {
    Q_OBJECT
public:
    explicit EventBrowser(QWidget* parent = nullptr);

    void setSession(const std::shared_ptr<const Session>& session);
    EventTableModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QString summary() const;

private:
    EventTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
};

} // namespace gapscope
