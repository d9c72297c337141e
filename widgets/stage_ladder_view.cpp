#include "widgets/stage_ladder_view.h"

#include "widgets/bounded_text_delegate.h"
#include "widgets/fix_view.h"
#include "widgets/stage_ladder_model.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

StageLadderView::StageLadderView(QWidget* parent)
    : QWidget(parent), m_model(new StageLadderModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)), m_header(new QLabel(this)), m_fix(new FixView(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StageLadderModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setObjectName(QStringLiteral("stageLadderTable"));
    m_table->setItemDelegate(new BoundedTextDelegate(m_table)); // op names from the inputs may be huge
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(StageLadderModel::kOpColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    // The numbers beside the names, not spread over the width.
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::PlainText); // names come from the inputs
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* ladder = new QWidget(this);
    auto* ladderLayout = new QVBoxLayout(ladder);
    ladderLayout->setContentsMargins(0, 0, 0, 0);
    ladderLayout->addWidget(m_header);
    ladderLayout->addWidget(m_table, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(ladder);
    split->addWidget(m_fix);
    split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_selecting || !current.isValid())
                    return;
                const int row = m_proxy->data(current, StageLadderModel::RowIndexRole).toInt();
                if (row >= 0)
                    emit rowSelected(static_cast<std::size_t>(row));
            });
    setLadder(nullptr);
}

void StageLadderView::setLadder(std::shared_ptr<const StageLadder> ladder, const QString& why) {
    m_model->setLadder(ladder);
    m_table->setVisible(ladder != nullptr);
    if (!ladder) {
        m_header->setText(why.isEmpty()
                              ? tr("The stage ladder needs two references of this run (a float model "
                                   "and the program's own graph, say): write them with "
                                   "gapscope-capture stages ETRECORD SESSION/stages")
                              : why);
        return;
    }
    QStringList stages;
    for (const auto stage : ladder->stages)
        stages << QString::fromStdString(ladderStageLabel(stage));
    QString text = tr("%1. Each column: the SNR (dB) a step adds, its stage against the one before; "
                      "the shaded cell is the step that loses the most.")
                       .arg(stages.join(QStringLiteral(" → ")));
    for (const auto& note : ladder->notes)
        text += QStringLiteral("\n") + tr("Note: %1").arg(QString::fromStdString(note));
    m_header->setText(text);
    QStringList files;
    for (std::size_t s = 0; s < ladder->capture_paths.size(); ++s)
        files << QStringLiteral("%1: %2").arg(QString::fromStdString(ladderStageLabel(ladder->stages[s])),
                                              QString::fromStdString(ladder->capture_paths[s]));
    files << tr("device: %1").arg(QString::fromStdString(ladder->device_path));
    m_header->setToolTip(files.join(QStringLiteral("\n")));
    m_table->resizeColumnsToContents();
}

void StageLadderView::setSelectedRow(std::optional<std::size_t> row) {
    if (!row || !m_model->ladder())
        return;
    const auto& rows = m_model->ladder()->rows;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].output || rows[i].row != *row)
            continue;
        const QModelIndex at = m_proxy->mapFromSource(m_model->index(static_cast<int>(i), 0));
        m_selecting = true; // the selection came from elsewhere: not sent back
        m_table->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        m_table->scrollTo(at);
        m_selecting = false;
        return;
    }
}

} // namespace gapscope
