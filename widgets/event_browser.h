#pragma once

#include "core/session/session.h"

#include <QWidget>
#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

class QTabWidget;

namespace gapscope {

class GraphView;

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
    // The ETRecord's graph, when the session has one but no comparison (no capture yet).
    GraphView* graph() const { return m_graph; }
    QTabWidget* tabs() const { return m_tabs; }

private:
    EventTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    GraphView* m_graph;
};

} // namespace gapscope
