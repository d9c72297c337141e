#include "app/gui/debug_buffer_picker.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace gapscope {

DebugBufferPicker::DebugBufferPicker(QWidget* parent) : QWidget(parent), m_buttons(new QHBoxLayout) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(6, 0, 6, 0);
    auto* label = new QLabel(tr("Which file is the debug buffer?"));
    row->addWidget(label);
    row->addLayout(m_buttons);
    row->addStretch(1);
    hide();
}

void DebugBufferPicker::setCandidates(const QStringList& paths) {
    if (paths == m_candidates)
        return;
    m_candidates = paths;
    while (auto* item = m_buttons->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const auto& path : paths) {
        // The file's name on the button, its whole path in the tooltip.
        auto* button = new QPushButton(QFileInfo(path).fileName());
        button->setObjectName(QStringLiteral("debugBufferCandidate"));
        button->setToolTip(tr("Use %1 as the debug buffer").arg(path));
        connect(button, &QPushButton::clicked, this, [this, path] { emit picked(path); });
        m_buttons->addWidget(button);
    }
    setVisible(!paths.isEmpty());
}

} // namespace gapscope
