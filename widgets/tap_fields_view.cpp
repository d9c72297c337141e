#include "widgets/tap_fields_view.h"

#include "widgets/bounded_text_delegate.h"
#include "widgets/tap_fields_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

TapFieldsView::TapFieldsView(QWidget* parent)
    : QWidget(parent), m_model(new TapFieldsModel(this)), m_table(new QTableView(this)),
      m_note(new QLabel(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::PlainText);
    layout->addWidget(m_note);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(TapFieldsModel::SortRole);
    m_table->setObjectName(QStringLiteral("tapFields"));
    m_table->setItemDelegate(new BoundedTextDelegate(m_table)); // field names come from the capture
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(TapFieldsModel::Field, Qt::AscendingOrder);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
}

void TapFieldsView::setRow(const ComparisonRow* row) {
    const bool reduced = row && row->tap && row->tap->fields;
    m_model->setTap(reduced ? row->tap : nullptr);
    m_note->setText(reduced ? boundedText(tr("%1 tap: the device's statistics against the reference's, as "
                                             "ExecuTorch's reducer computed them. Why: %2.")
                                              .arg(QString::fromStdString(row->tap->spec.reducer),
                                                   QString::fromStdString(row->reason)),
                                          BoundedTextDelegate::kMaxToolTip)
                            : QString());
}

} // namespace gapscope
