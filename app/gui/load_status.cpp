#include "app/gui/load_status.h"

#include "app/gui/session_loader.h"
#include "app/gui/session_status.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>

namespace gapscope {

LoadStatus::LoadStatus(QStatusBar* bar, SessionLoader* loader, QObject* parent)
    : QObject(parent), m_progress(new QProgressBar), m_cancel(new QPushButton(tr("Cancel"))),
      m_status(new QLabel), m_worstLink(new QLabel) {
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_cancel->hide();
    m_status->setObjectName(QStringLiteral("sessionStatus"));
    // A long message is cut, as showMessage's was; it never widens the window.
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_status, 1);
    m_worstLink->setObjectName(QStringLiteral("worstOpLink"));
    m_worstLink->setTextFormat(Qt::RichText);
    m_worstLink->setToolTip(tr("No op crosses the threshold: select the op that comes closest"));
    m_worstLink->hide();
    connect(m_worstLink, &QLabel::linkActivated, this,
            [this](const QString& row) { emit rowRequested(row.toULongLong()); });
    bar->addWidget(m_worstLink);
    bar->addPermanentWidget(m_progress);
    bar->addPermanentWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &LoadStatus::cancelRequested);

    connect(loader, &SessionLoader::started, this, [this] {
        m_progress->setRange(0, 0);
        m_progress->show();
        m_cancel->show();
        m_status->setText(tr("Loading…"));
    });
    connect(loader, &SessionLoader::progress, this,
            [this](const QString& stage, quint64 done, quint64 total) {
                // QProgressBar::setValue repaints at once (repaint(), not update()),
                // which paints every dirty widget of the window inside this slot, the
                // table a snapshot has just changed too. With updates off, the bar is
                // painted with the rest when the event loop gets to it.
                m_progress->setUpdatesEnabled(false);
                m_progress->setRange(0, 1000);
                m_progress->setValue(total ? static_cast<int>(done * 1000 / total) : 0);
                m_progress->setFormat(stage + QStringLiteral(" %p%"));
                m_progress->setTextVisible(true);
                m_progress->setUpdatesEnabled(true); // an update(): painted later
            });
}

void LoadStatus::loadEnded() {
    m_progress->hide();
    m_cancel->hide();
}

void LoadStatus::setText(const QString& text) {
    m_status->setText(text);
}

void LoadStatus::showSession(const Session* snapshot, std::optional<std::size_t> topIntroducer) {
    const SessionStatus status =
        snapshot && snapshot->comparison ? describeSession(*snapshot, topIntroducer) : SessionStatus{};
    m_status->setText(status.text);
    // Op names come from the inputs: escaped, the link alone is markup.
    m_worstLink->setText(
        status.worst
            ? QStringLiteral("<a href=\"%1\">%2</a>").arg(*status.worst).arg(status.worstLink.toHtmlEscaped())
            : QString());
    m_worstLink->setVisible(status.worst.has_value());
}

} // namespace gapscope
