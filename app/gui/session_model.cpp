#include "app/gui/session_model.h"

#include "app/gui/session_loader.h"

namespace gapscope {

SessionModel::SessionModel(SessionLoader* loader, const MetricThreshold& threshold, QObject* parent)
    : QObject(parent), m_threshold(threshold) {
    connect(loader, &SessionLoader::opened, this,
            [this](std::shared_ptr<const Session> snapshot, const QStringList& pathErrors) {
                m_snapshot = judged(std::move(snapshot));
                emit opened(m_snapshot, pathErrors);
            });
    connect(loader, &SessionLoader::measured, this,
            [this](std::shared_ptr<const Session> snapshot, std::size_t first, std::size_t last) {
                m_snapshot = judged(std::move(snapshot));
                emit rowsMeasured(m_snapshot, first, last);
            });
    connect(loader, &SessionLoader::completed, this, [this](std::shared_ptr<const Session> snapshot) {
        m_snapshot = judged(std::move(snapshot));
        emit completed(m_snapshot);
    });
}

std::shared_ptr<const Session> SessionModel::judged(std::shared_ptr<const Session> snapshot) const {
    if (!snapshot ||
        (snapshot->threshold.metric == m_threshold.metric && snapshot->threshold.value == m_threshold.value))
        return snapshot;
    return std::make_shared<const Session>(withThreshold(*snapshot, m_threshold));
}

void SessionModel::setThreshold(const MetricThreshold& threshold) {
    if (threshold.metric == m_threshold.metric && threshold.value == m_threshold.value)
        return; // nothing to judge again
    m_threshold = threshold;
    emit thresholdChanged(m_threshold);
    if (!m_snapshot)
        return;
    m_snapshot = judged(m_snapshot);
    emit rejudged(m_snapshot);
}

void SessionModel::stopMeasuring() {
    emit measuringStopped();
}

} // namespace gapscope
