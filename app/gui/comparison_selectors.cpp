#include "app/gui/comparison_selectors.h"

#include "core/align/run_methods.h"
#include "core/capture/reference_kind.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QStandardItemModel>
#include <algorithm>

namespace gapscope {

ComparisonSelectors::ComparisonSelectors(QWidget* parent)
    : QWidget(parent), m_methodLabel(new QLabel(tr("Method:"), this)), m_methods(new QComboBox(this)),
      m_captureLabel(new QLabel(tr("Reference:"), this)), m_referenceKind(new QLabel(this)),
      m_captures(new QComboBox(this)), m_runs(new QComboBox(this)) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 2);
    layout->addWidget(m_methodLabel);
    layout->addWidget(m_methods);
    layout->addWidget(m_captureLabel);
    layout->addWidget(m_captures);
    m_referenceKind->setObjectName(QStringLiteral("referenceKind"));
    m_referenceKind->setStyleSheet(QStringLiteral("QLabel { color: #555; font-style: italic; }"));
    layout->addWidget(m_referenceKind);
    layout->addWidget(new QLabel(tr("Run:"), this));
    layout->addWidget(m_runs);
    m_methods->setToolTip(tr("The program method to compare (each method needs its own capture)"));
    m_captures->setToolTip(tr("The reference to compare against, of the captures given"));
    m_runs->setToolTip(tr("The RunData block of the ETDump to compare"));
    m_methods->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    // Capture names and run labels can be long: elided past a width (the tooltip
    // and the open list show them whole), so that at 1024 px the filter keeps its room.
    for (QComboBox* box : {m_captures, m_runs}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(16);
    }
    for (QWidget* w : {static_cast<QWidget*>(m_methodLabel), static_cast<QWidget*>(m_methods),
                       static_cast<QWidget*>(m_captureLabel), static_cast<QWidget*>(m_captures),
                       static_cast<QWidget*>(m_referenceKind)})
        w->hide(); // shown when there is a choice

    connect(m_runs, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        if (!m_session || !m_session->comparison)
            return;
        const auto& c = *m_session->comparison;
        const auto run = static_cast<std::size_t>(m_runs->itemData(index).toULongLong());
        if (c.run == run)
            return;
        // A run that fits another method (and only that one) is compared as that method.
        std::string method = c.method;
        if (run < c.run_methods.size() && c.run_methods[run].size() == 1)
            method = c.run_methods[run].front();
        emit compareRequested(QString::fromStdString(method), run);
    });
    connect(m_methods, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const QString method = m_methods->itemText(index);
        if (m_session && m_session->comparison && m_session->comparison->method != method.toStdString())
            emit compareRequested(method, std::nullopt);
    });
    connect(m_captures, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const QString path = m_captures->itemData(index).toString();
        if (m_session && m_session->capture_file && m_session->capture_file->path() != path.toStdString())
            emit captureRequested(path);
    });
}

void ComparisonSelectors::setSession(const std::shared_ptr<const Session>& session) {
    m_session = session;
    fillMethods();
    fillCaptures();
    fillRuns();
}

void ComparisonSelectors::fillRuns() {
    m_runs->clear();
    if (!m_session || !m_session->dump)
        return;
    for (std::size_t r = 0; r < m_session->dump->runs.size(); ++r) {
        const auto& run = m_session->dump->runs[r];
        QString methods;
        if (m_session->comparison && r < m_session->comparison->run_methods.size())
            for (const auto& m : m_session->comparison->run_methods[r])
                methods += QStringLiteral(" · ") + QString::fromStdString(m);
        m_runs->addItem(tr("%1: %2%3 (%4 events)")
                            .arg(r)
                            .arg(QString::fromStdString(run.name.value_or("unnamed")))
                            .arg(methods)
                            .arg(run.events.size()),
                        static_cast<qulonglong>(r));
    }
    if (m_session->comparison)
        m_runs->setCurrentIndex(static_cast<int>(m_session->comparison->run));
}

void ComparisonSelectors::fillMethods() {
    m_methods->clear();
    const bool multi = m_session && m_session->etrecord && isMultiMethod(*m_session->etrecord);
    m_methods->setVisible(multi);
    m_methodLabel->setVisible(multi);
    if (!multi)
        return;
    const auto& captured = m_session->capture_methods();
    for (const auto& method : methodNames(*m_session->etrecord)) {
        m_methods->addItem(QString::fromStdString(method));
        if (std::find(captured.begin(), captured.end(), method) == captured.end()) {
            // Rows of a method pair its runtime events with its own capture only.
            const int i = m_methods->count() - 1;
            m_methods->setItemData(i,
                                   tr("No capture of this method is open: capture it with "
                                      "gapscope-capture from-etrecord --method %1")
                                       .arg(QString::fromStdString(method)),
                                   Qt::ToolTipRole);
            if (auto* model = qobject_cast<QStandardItemModel*>(m_methods->model()))
                model->item(i)->setEnabled(false);
        }
    }
    if (m_session->comparison)
        m_methods->setCurrentText(QString::fromStdString(m_session->comparison->method));
}

void ComparisonSelectors::fillCaptures() {
    m_captures->clear();
    m_referenceKind->hide();
    if (!m_session || !m_session->capture_file)
        return;
    // The captures of the compared capture's method: the others belong to the
    // other methods of a multi-method program (the method selector).
    const auto& paths = m_session->capture_paths();
    const auto& methods = m_session->capture_methods();
    const auto chosen =
        std::find(paths.begin(), paths.end(), m_session->capture_file->path()) - paths.begin();
    for (std::size_t i = 0; i < paths.size() && i < methods.size(); ++i)
        if (static_cast<long>(i) == chosen || methods[i] == methods[static_cast<std::size_t>(chosen)]) {
            m_captures->addItem(QFileInfo(QString::fromStdString(paths[i])).fileName(),
                                QString::fromStdString(paths[i]));
            QString tip = QString::fromStdString(paths[i]);
            if (static_cast<long>(i) == chosen && m_session->capture && m_session->capture->reference_graph)
                tip += QLatin1Char('\n') +
                       tr("reference graph: %1")
                           .arg(QString::fromStdString(*m_session->capture->reference_graph));
            m_captures->setItemData(m_captures->count() - 1, tip, Qt::ToolTipRole);
            if (static_cast<long>(i) == chosen)
                m_captures->setCurrentIndex(m_captures->count() - 1);
        }
    // Which reference the numbers are against is always said (the float model's and
    // the quantised graph's give different answers); a choice only when there is one.
    const bool choice = m_captures->count() > 1;
    m_captures->setVisible(m_captures->count() > 0);
    m_captureLabel->setVisible(m_captures->count() > 0);
    m_captures->setEnabled(choice);
    if (m_session->capture) {
        const ReferenceKind kind = referenceKind(*m_session->capture);
        m_referenceKind->setText(QString::fromStdString(gapscope::referenceKindLabel(kind)));
        m_referenceKind->setToolTip(QString::fromStdString(referenceKindMeaning(kind)));
    }
    m_referenceKind->setVisible(m_session->capture != nullptr);
}

} // namespace gapscope
