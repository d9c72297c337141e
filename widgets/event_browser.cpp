#include "widgets/event_browser.h"

#include "core/compare/op_graph.h"
#include "core/session/capture_advice.h"
#include "widgets/bounded_text_delegate.h"
#include "widgets/event_table_model.h"
#include "widgets/graph_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

EventBrowser::EventBrowser(QWidget* parent)
    : QWidget(parent), m_model(new EventTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_summary(new QLabel(this)), m_tabs(new QTabWidget(this)),
      m_graph(new GraphView(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(EventTableModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setItemDelegate(new BoundedTextDelegate(m_view));
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(EventTableModel::Index, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setTabKeyNavigation(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse); // the command can be copied
    m_tabs->addTab(m_view, tr("Events"));
    m_tabs->addTab(m_graph, tr("Graph (ETRecord)"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
}

void EventBrowser::setSession(const std::shared_ptr<const Session>& session) {
    m_model->setSession(session);
    QString missing;
    if (session)
        for (const auto& m : session->missing)
            missing += (missing.isEmpty() ? QString() : QStringLiteral(", ")) +
                       QString::fromLatin1(inputRoleLabel(m));
    const auto advice = session ? captureAdvice(*session) : std::nullopt;
    m_summary->setText(
        tr("<b>ETDump read:</b> %1.%2%3")
            .arg(m_model->summary().toHtmlEscaped(),
                 missing.isEmpty() ? QString()
                                   : tr(" To compare with the reference, add: %1 (drop them here).")
                                         .arg(missing.toHtmlEscaped()),
                 advice
                     ? QStringLiteral("<br><tt>%1</tt>").arg(QString::fromStdString(*advice).toHtmlEscaped())
                     : QString()));
    m_view->resizeColumnsToContents();
    // The ETRecord's graph, before any capture: what the program is made of.
    const ExportGraph* graph = session && session->etrecord ? session->etrecord->edgeProgram() : nullptr;
    m_tabs->setTabVisible(1, graph != nullptr);
    m_graph->setSession(nullptr);
    m_graph->setGraph(graph ? buildOpGraph(Comparison{}, *graph) : OpGraph{});
}

QString EventBrowser::summary() const {
    return m_summary->text();
}

} // namespace gapscope
