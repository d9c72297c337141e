#include "widgets/event_browser.h"

#include "widgets/event_table_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

EventBrowser::EventBrowser(QWidget* parent)
    : QWidget(parent), m_model(new EventTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_summary(new QLabel(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(EventTableModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(EventTableModel::Index, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setTabKeyNavigation(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);
}

void EventBrowser::setSession(const std::shared_ptr<const Session>& session) {
    m_model->setSession(session);
    QString missing;
    if (session)
        for (const auto& m : session->missing)
            missing += (missing.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(m);
    m_summary->setText(tr("<b>ETDump read:</b> %1.%2")
                           .arg(m_model->summary().toHtmlEscaped(),
                                missing.isEmpty()
                                    ? QString()
                                    : tr(" To compare with the reference, add: %1 (drop them here).")
                                          .arg(missing.toHtmlEscaped())));
    m_view->resizeColumnsToContents();
}

QString EventBrowser::summary() const {
    return m_summary->text();
}

} // namespace gapscope
