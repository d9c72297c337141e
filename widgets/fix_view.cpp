#include "widgets/fix_view.h"

#include "widgets/bounded_text_delegate.h"
#include "widgets/fix_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace gapscope {

FixView::FixView(QWidget* parent)
    : QWidget(parent), m_model(new FixModel(this)), m_table(new QTableView(this)),
      m_verdict(new QLabel(this)), m_snippet(new QPlainTextEdit(this)),
      m_openFixed(new QPushButton(tr("Compare with the fixed run (A/B)"), this)) {
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(FixModel::SortRole);
    m_table->setModel(proxy);
    m_table->setObjectName(QStringLiteral("fixTable"));
    m_table->setItemDelegate(new BoundedTextDelegate(m_table)); // module names from the user's model
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(FixModel::Recovered, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_snippet->setReadOnly(true);
    m_snippet->setObjectName(QStringLiteral("fixSnippet"));
    m_snippet->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_snippet->setFont(QFont(QStringLiteral("monospace")));
    m_snippet->setToolTip(
        tr("The quantiser's configuration that reached the best result, verified by a run"));
    auto* lower = new QHBoxLayout;
    lower->addWidget(m_snippet, 1);
    lower->addWidget(m_openFixed, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_verdict);
    layout->addWidget(m_table, 1);
    layout->addLayout(lower, 1);
    connect(m_openFixed, &QPushButton::clicked, this, [this] {
        if (m_model->report() && !m_model->report()->fixed_session.empty())
            emit fixedSessionRequested(QString::fromStdString(m_model->report()->fixed_session));
    });
    setReport(nullptr);
}

void FixView::setReport(std::shared_ptr<const FixReport> report, const QString& error) {
    m_model->setReport(report);
    setVisible(report != nullptr || !error.isEmpty());
    m_table->setVisible(report != nullptr);
    m_snippet->setVisible(report != nullptr);
    m_openFixed->setVisible(report && !report->fixed_session.empty());
    if (!report) {
        m_verdict->setText(error.isEmpty() ? QString()
                                           : tr("The fix report could not be read: %1").arg(error));
        return;
    }
    const FixTrial& best = report->best ? *report->best : report->baseline;
    QStringList kept;
    for (const auto& m : best.keep_float)
        kept << QString::fromStdString(m);
    m_verdict->setText(
        tr("What to change (gapscope-capture fix, %1, target %2): %3. Output SNR %4 → %5 with %6 kept in "
           "float; every number is of a run of that configuration.")
            .arg(QString::fromStdString(report->recipe), QString::fromStdString(report->target),
                 report->met ? tr("met") : tr("not met (%1)").arg(QString::fromStdString(report->stopped)),
                 fixDbText(report->baseline.output_snr_db), fixDbText(best.output_snr_db),
                 kept.isEmpty() ? tr("nothing") : kept.join(QStringLiteral(", "))));
    m_snippet->setPlainText(QString::fromStdString(report->snippet));
    m_table->resizeColumnsToContents();
}

} // namespace gapscope
