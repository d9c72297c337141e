#include "app/gui/capture_offer.h"

#include "app/gui/capture_maker.h"
#include "core/session/session.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace gapscope {

CaptureOffer::CaptureOffer(QWidget* parent)
    : QFrame(parent), m_maker(new CaptureMaker(this)), m_text(new QLabel), m_progress(new QProgressBar),
      m_make(new QPushButton(tr("&Make the reference"))), m_cancel(new QPushButton(tr("Cancel"))) {
    setFrameShape(QFrame::StyledPanel);
    setObjectName(QStringLiteral("captureOffer"));
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText); // paths come from the inputs
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(220);
    m_make->setToolTip(tr("Run the ETRecord's reference graph on the inputs beside it with the exporter "
                          "(gapscope-capture for-session) and compare with the result"));
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_make);
    layout->addWidget(m_cancel);
    connect(m_make, &QPushButton::clicked, this, [this] {
        if (!m_request)
            return;
        QString why;
        if (!m_maker->prepare(*m_request, &why)) {
            m_unavailable = why;
            showIdle();
            return;
        }
        m_maker->make();
        showMaking(m_maker->ready() ? tr("Sending the request")
                                    : tr("Starting the exporter (torch, ExecuTorch)"),
                   0);
    });
    connect(m_cancel, &QPushButton::clicked, m_maker, &CaptureMaker::cancel);
    connect(m_maker, &CaptureMaker::progressed, this, &CaptureOffer::showMaking);
    connect(m_maker, &CaptureMaker::readyChanged, this, [this] {
        if (!m_maker->making())
            showIdle();
    });
    connect(m_maker, &CaptureMaker::finished, this, [this](const QString& output, long records) {
        m_text->setText(tr("Made %1 (%2 records); reading the session again…")
                            .arg(QFileInfo(output).fileName())
                            .arg(records));
        m_progress->setValue(1000);
        m_make->setEnabled(false);
        m_cancel->setEnabled(false);
        emit made(output);
    });
    connect(m_maker, &CaptureMaker::failed, this, [this](const QString& message) {
        m_maker->stop();
        showIdle();
        m_text->setText(tr("The reference could not be made: %1").arg(message));
    });
    connect(m_maker, &CaptureMaker::cancelled, this, [this] {
        showIdle();
        m_text->setText(tr("Cancelled: nothing was written. %1").arg(m_text->toolTip()));
    });
    hide();
}

void CaptureOffer::setSession(const Session* session) {
    auto request = session ? captureRequest(*session) : std::nullopt;
    if (!request) {
        m_request.reset();
        m_maker->stop();
        hide();
        return;
    }
    if (m_request == request && isVisible())
        return; // the same session again (a snapshot of its load)
    m_request = request;
    m_unavailable.clear();
    // The worker starts now, in the background: its imports are paid while the user reads this.
    QString why;
    if (!m_maker->prepare(*m_request, &why))
        m_unavailable = why;
    showIdle();
    show();
}

void CaptureOffer::showIdle() {
    m_progress->hide();
    m_cancel->hide();
    m_make->show();
    m_make->setEnabled(m_unavailable.isEmpty());
    const QString where =
        m_request ? QFileInfo(QString::fromStdString(m_request->output)).absolutePath() : QString();
    const QString text =
        m_unavailable.isEmpty()
            ? tr("No reference capture: Gapscope can make it from the ETRecord and the inputs beside it, "
                 "into %1.")
                  .arg(where)
            : tr("No reference capture, and it cannot be made here: %1").arg(m_unavailable);
    m_text->setText(text);
    m_text->setToolTip(text);
}

void CaptureOffer::showMaking(const QString& stage, double fraction) {
    m_make->hide();
    m_cancel->show();
    m_cancel->setEnabled(true);
    m_progress->show();
    m_progress->setValue(static_cast<int>(fraction * 1000));
    m_text->setText(tr("Making the reference: %1…").arg(stage));
}

QString CaptureOffer::status() const {
    return m_text->text();
}

} // namespace gapscope
