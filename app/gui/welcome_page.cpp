#include "app/gui/welcome_page.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace gapscope {

QString describeFiles(const QStringList& files) {
    QStringList names;
    for (const auto& f : files.mid(0, 3))
        names << QFileInfo(f).fileName();
    QString text = names.join(QStringLiteral(", "));
    if (files.size() > 3)
        text += QStringLiteral(" (+%1)").arg(files.size() - 3);
    if (!files.isEmpty())
        text += QStringLiteral("  —  ") + QFileInfo(files.front()).absolutePath();
    return text;
}

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent), m_recent(new QListWidget(this)) {
    auto* hello = new QLabel(
        tr("<h2>Gapscope</h2>"
           "<p>Find the op where an ExecuTorch model starts to drift from its reference.</p>"
           "<p><b>Run on the device</b> with ETDump and a debug buffer → <b>capture the reference</b> with "
           "<tt>gapscope-capture</tt> → <b>open</b> the ETDump (<tt>.etdp</tt>), debug buffer, ETRecord and "
           "capture here, or a folder holding them, or drop them on this window.</p>"),
        this);
    hello->setWordWrap(true);
    hello->setAlignment(Qt::AlignCenter);
    hello->setTextFormat(Qt::RichText);

    auto* open = new QPushButton(tr("Open files…"), this);
    open->setDefault(true);
    open->setToolTip(
        tr("ETDump, debug buffer, ETRecord, AOT capture, a folder, or a saved session (Ctrl+O)"));
    connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    // A device's session is a folder: the file dialog cannot pick one (issue 56).
    auto* openFolder = new QPushButton(tr("Open folder…"), this);
    openFolder->setObjectName(QStringLiteral("openFolder"));
    openFolder->setToolTip(tr("A folder holding a session's files (Ctrl+Alt+O)"));
    connect(openFolder, &QPushButton::clicked, this, &WelcomePage::openFolderRequested);
    auto* demo = new QPushButton(tr("XNNPACK int8 demo"), this);
    demo->setToolTip(tr("A small conv/layer_norm/linear/topk model quantised to int8 and lowered to XNNPACK, "
                        "compared with the float model"));
    connect(demo, &QPushButton::clicked, this, [this] { emit demoRequested(EmbeddedDemo::Xnnpack); });
    auto* qnnDemo = new QPushButton(tr("QNN 8a8w demo"), this);
    qnnDemo->setToolTip(tr("A conv stem and an attention block quantised 8a8w for Qualcomm's HTP: raw uint8, "
                           "channels-last device tensors, dequantised and re-laid out"));
    connect(qnnDemo, &QPushButton::clicked, this, [this] { emit demoRequested(EmbeddedDemo::Qnn); });
    auto* buttons = new QHBoxLayout;
    buttons->addStretch();
    for (auto* b : {open, openFolder, demo, qnnDemo})
        buttons->addWidget(b);
    buttons->addStretch();

    auto* recentTitle = new QLabel(tr("<b>Recent sessions</b>"), this);
    m_recent->setMinimumWidth(560);
    m_recent->setMaximumHeight(200);
    connect(m_recent, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit recentRequested(item->data(Qt::UserRole).toStringList()); });

    // One centred column at most 760 wide (a paragraph, not one line across a
    // wide screen). The label fills it: given an alignment instead, a
    // word-wrapped label keeps a narrow size hint and clips its last paragraph.
    auto* panel = new QWidget(this);
    panel->setMaximumWidth(760);
    auto* column = new QVBoxLayout(panel);
    column->addStretch();
    column->addWidget(hello);
    column->addLayout(buttons);
    column->addSpacing(16);
    column->addWidget(recentTitle, 0, Qt::AlignHCenter);
    column->addWidget(m_recent);
    column->addStretch();
    auto* layout = new QHBoxLayout(this);
    layout->addStretch(1);
    layout->addWidget(panel, 4);
    layout->addStretch(1);
    setRecent({});
}

void WelcomePage::setRecent(const QList<QStringList>& sessions) {
    m_recent->clear();
    for (const auto& files : sessions) {
        auto* item = new QListWidgetItem(describeFiles(files), m_recent);
        item->setData(Qt::UserRole, files);
        item->setToolTip(files.join(QLatin1Char('\n')));
    }
    if (sessions.isEmpty()) {
        auto* none = new QListWidgetItem(tr("none yet"), m_recent);
        none->setFlags(Qt::NoItemFlags);
    }
}

} // namespace gapscope
