#include "app/gui/capture_maker.h"

#include <QProcess>

namespace gapscope {

CaptureMaker::CaptureMaker(QObject* parent) : QObject(parent) {}

CaptureMaker::~CaptureMaker() {
    stop();
}

bool CaptureMaker::preparedFor(const CaptureRequest& r) const {
    return m_process && m_request == r;
}

bool CaptureMaker::prepare(const CaptureRequest& request, QString* why) {
    if (preparedFor(request))
        return true;
    stop();
    std::string reason;
    auto command = exporterCommand(reason);
    if (command.empty()) {
        if (why)
            *why = QString::fromStdString(reason);
        return false;
    }
    m_request = request;
    m_ready = m_requested = m_sent = m_settled = false;
    m_pending.clear();
    m_errors.clear();
    m_process = new QProcess(this);
    QStringList args;
    for (std::size_t i = 1; i < command.size(); ++i)
        args << QString::fromStdString(command[i]);
    args << QStringLiteral("serve");
    connect(m_process, &QProcess::readyReadStandardOutput, this, &CaptureMaker::readLines);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_errors += m_process->readAllStandardError();
        if (m_errors.size() > 4096)
            m_errors = m_errors.right(4096);
    });
    connect(m_process, &QProcess::finished, this, &CaptureMaker::ended);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            ended();
    });
    m_process->start(QString::fromStdString(command.front()), args);
    return true;
}

void CaptureMaker::make() {
    if (!m_process || m_requested)
        return;
    m_requested = true;
    if (m_ready && !m_sent) {
        m_sent = true;
        m_process->write(QByteArray::fromStdString(serveRequestLine(m_request)));
    }
}

void CaptureMaker::readLines() {
    m_pending += m_process->readAllStandardOutput();
    for (qsizetype end; (end = m_pending.indexOf('\n')) >= 0;) {
        const QByteArray line = m_pending.left(end);
        m_pending.remove(0, end + 1);
        const WorkerEvent e = parseWorkerEvent(std::string_view(line.constData(), line.size()));
        switch (e.kind) {
        case WorkerEvent::Kind::Ready:
            m_ready = true;
            emit readyChanged(true);
            if (m_requested && !m_sent) {
                m_sent = true;
                m_process->write(QByteArray::fromStdString(serveRequestLine(m_request)));
            }
            break;
        case WorkerEvent::Kind::Progress: emit progressed(QString::fromStdString(e.stage), e.fraction); break;
        case WorkerEvent::Kind::Done:
            m_settled = true;
            emit finished(QString::fromStdString(e.output), e.records);
            break;
        case WorkerEvent::Kind::Error:
            m_settled = true;
            emit failed(QString::fromStdString(e.message));
            break;
        case WorkerEvent::Kind::Unknown: break; // a library's print on standard output
        }
    }
}

void CaptureMaker::ended() {
    if (!m_process)
        return;
    const bool settled = m_settled;
    QString why = QString::fromUtf8(m_errors).trimmed();
    if (m_process->error() == QProcess::FailedToStart)
        why = tr("cannot start %1: %2").arg(m_process->program(), m_process->errorString());
    m_process->deleteLater();
    m_process = nullptr;
    m_ready = false;
    emit readyChanged(false);
    if (settled)
        return;
    // Ended before it said done or error: it crashed or could not import (told on its stderr).
    const QString tail = why.section(QLatin1Char('\n'), -6);
    emit failed(tail.isEmpty() ? tr("the exporter ended without a capture") : tail);
}

void CaptureMaker::cancel() {
    const bool asked = m_requested;
    stop();
    if (asked)
        emit cancelled();
}

void CaptureMaker::stop() {
    if (!m_process)
        return;
    QProcess* p = m_process;
    m_process = nullptr; // ended() says nothing for a process stopped on purpose
    p->disconnect(this);
    p->kill();
    p->waitForFinished(1000);
    p->deleteLater();
    m_ready = m_requested = m_sent = false;
    emit readyChanged(false);
}

} // namespace gapscope
