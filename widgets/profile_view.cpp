#include "widgets/profile_view.h"

#include "widgets/frozen_columns_table_view.h"
#include "widgets/profile_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QVBoxLayout>
#include <algorithm>

namespace gapscope {

ProfileView::ProfileView(QWidget* parent)
    : QWidget(parent), m_model(new ProfileModel(this)), m_table(new FrozenColumnsTableView(this)) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(ProfileModel::SortRole);
    m_table->setObjectName(QStringLiteral("profileTable"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setFrozenColumns({ProfileModel::Event});
    auto* summary = new QLabel(this);
    summary->setObjectName(QStringLiteral("profileSummary"));
    summary->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(summary);
    layout->addWidget(m_table, 1);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this, summary] {
        summary->setText(m_model->summary());
        m_table->resizeColumnsToContents();
        m_table->setColumnWidth(ProfileModel::Event,
                                std::min(m_table->columnWidth(ProfileModel::Event), 420));
        m_table->refreshFrozen();
    });
}

void ProfileView::setSession(std::shared_ptr<const Session> session) {
    m_model->setSession(std::move(session));
}

} // namespace gapscope
