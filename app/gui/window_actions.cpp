#include "app/gui/window_actions.h"

#include "app/gui/app_settings.h"
#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/production_checker.h"
#include "app/gui/report_exporter.h"
#include "app/gui/session_controller.h"
#include "app/gui/welcome_page.h"
#include "core/report/compare_report.h"
#include "widgets/gap_chart.h"
#include "widgets/plot_export.h"
#include "widgets/run_diff_model.h"

#include <QAction>
#include <QApplication>
#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>
#include <QUrl>

namespace gapscope {

namespace {

QAction* add(QMenu* menu, const QString& text, const QKeySequence& shortcut, QObject* context,
             std::function<void()> fn) {
    QAction* a = menu->addAction(text, context, std::move(fn));
    if (!shortcut.isEmpty()) {
        a->setShortcut(shortcut);
        a->setShortcutContext(Qt::ApplicationShortcut);
    }
    return a;
}

// Enabled, or disabled with the reason as its tooltip (menus show tooltips).
void allow(QAction* action, const QString& whyNot) {
    action->setEnabled(whyNot.isEmpty());
    action->setToolTip(whyNot.isEmpty() ? action->text().remove(QLatin1Char('&')) : whyNot);
}

// After an export: a box that does not block (the window stays usable, and a
// headless run never waits on it) offering to open what was written.
void offerToOpen(QWidget* parent, const QString& path) {
    auto* box = new QMessageBox(QMessageBox::Information, QObject::tr("Report written"),
                                QObject::tr("The report is in %1.").arg(path), QMessageBox::NoButton, parent);
    box->setObjectName(QStringLiteral("reportWritten"));
    box->setTextFormat(Qt::PlainText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* open = box->addButton(QObject::tr("&Open it"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Close);
    QObject::connect(open, &QPushButton::clicked, parent, [parent, path] {
        // No browser could start (a headless machine, no xdg-open): say where it is
        // (issue 56: "Open it" failed without a word).
        if (!QDesktopServices::openUrl(QUrl::fromLocalFile(path)))
            QMessageBox::warning(parent, QObject::tr("Could not open the report"),
                                 QObject::tr("No browser could be started for %1. Open the file in a "
                                             "browser yourself; it is self-contained.")
                                     .arg(path));
    });
    box->open();
}

} // namespace

WindowActions::WindowActions(MainWindow& window)
    : QObject(&window), m_window(window), m_productionChecker(new ProductionChecker(&window)) {
    MainWindow* w = &window;
    QMenu* file = window.menuBar()->addMenu(tr("&File"));
    file->setToolTipsVisible(true);
    add(file, tr("&Open…"), QKeySequence::Open, w, [w] {
        const auto files = QFileDialog::getOpenFileNames(
            w, tr("Open session files"), QFileInfo(w->defaultOutput(QString())).absolutePath(),
            tr("Session files (*.etdp *.bin *.safetensors *.json *.pte);;All files (*)"));
        if (!files.isEmpty())
            w->openOrAsk(files);
    })->setToolTip(tr("ETDump, debug buffer, ETRecord, AOT capture, or a saved session"));
    // A device's session is a folder, which the file dialog cannot pick (issue 56).
    add(file, tr("Open &Folder…"), QKeySequence(tr("Ctrl+Alt+O")), w, [w] {
        const auto dir = QFileDialog::getExistingDirectory(
            w, tr("Open a session's folder"), QFileInfo(w->defaultOutput(QString())).absolutePath());
        if (!dir.isEmpty())
            w->openOrAsk({dir});
    })->setToolTip(tr("A folder holding a session's files: ETDump, debug buffer, ETRecord, capture"));
    add(file, tr("&Compare With…"), QKeySequence(tr("Ctrl+Shift+O")), w, [w] {
        const auto dir = QFileDialog::getExistingDirectory(
            w, tr("Compare with another session's folder (B)"),
            QFileInfo(QFileInfo(w->defaultOutput(QString())).absolutePath()).absolutePath());
        if (!dir.isEmpty())
            w->compareWith({dir});
    })->setToolTip(tr("Another backend, recipe or build of this model, side by side in the A/B tab"));
    add(file, tr("Compare With &Files…"), QKeySequence(), w, [w] {
        const auto files = QFileDialog::getOpenFileNames(
            w, tr("Compare with another session's files (B)"),
            QFileInfo(QFileInfo(w->defaultOutput(QString())).absolutePath()).absolutePath(),
            tr("Session files (*.etdp *.bin *.safetensors *.json *.pte);;All files (*)"));
        if (!files.isEmpty())
            w->compareWith(files);
    })->setToolTip(tr("B from its files rather than its folder"));
    m_checkProduction = add(file, tr("Check Against the &Production Build…"), QKeySequence(), w, [this, w] {
        const auto dir = QFileDialog::getExistingDirectory(
            w, tr("The production build's folder (its ETRecord, ETDump and debug buffer)"),
            QFileInfo(QFileInfo(w->defaultOutput(QString())).absolutePath()).absolutePath());
        if (!dir.isEmpty())
            m_productionChecker->check(w->session(), dir);
    });
    m_checkProduction->setToolTip(
        tr("A tapped session: does the build shipped place and quantise its ops alike, "
           "and give the same outputs?"));
    m_reload = add(file, tr("&Reload"), QKeySequence(Qt::Key_F5), w, [w] { w->reload(); });
    m_recent = file->addMenu(tr("Recent sessions"));
    m_recent->setToolTipsVisible(true);
    file->addSeparator();
    m_saveSession = add(file, tr("Sa&ve session…"), QKeySequence::Save, w, [w] {
        const auto path = QFileDialog::getSaveFileName(w, tr("Save session"),
                                                       w->defaultOutput(QStringLiteral(".gapscope.json")),
                                                       tr("Gapscope session (*.gapscope.json)"));
        if (!path.isEmpty())
            w->saveSession(path); // ".gapscope.json" added when missing
    });
    m_exportCsv = add(file, tr("&Export table as CSV…"), QKeySequence(tr("Ctrl+E")), w, [w] {
        const auto path = QFileDialog::getSaveFileName(
            w, tr("Export CSV"), w->defaultOutput(QStringLiteral(".csv")), tr("CSV (*.csv);;All files (*)"));
        if (!path.isEmpty() && !w->exportCsv(path))
            w->statusBar()->showMessage(tr("Could not write %1").arg(path), 5000);
    });
    m_exportChart = add(file, tr("Export gap chart as &PNG, PDF or SVG…"), {}, w, [w] {
        const auto path = QFileDialog::getSaveFileName(
            w, tr("Export chart"), w->defaultOutput(QStringLiteral("-gap-chart.png")),
            tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)"));
        if (path.isEmpty())
            return;
        const QString err = savePlot(w->inspector()->chart()->plot(), path);
        w->statusBar()->showMessage(err.isEmpty() ? tr("Chart written to %1").arg(path) : err, 5000);
    });
    m_exportReport = add(file, tr("Export &report…"), QKeySequence(tr("Ctrl+Shift+E")), w, [w] {
        // A new folder's name is typed like a file's; it is created.
        QFileDialog dialog(w, tr("Export report into a folder (created if new)"));
        dialog.setFileMode(QFileDialog::AnyFile);
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setOption(QFileDialog::ShowDirsOnly);
        dialog.selectFile(w->defaultOutput(QStringLiteral("-report")));
        if (!dialog.exec() || dialog.selectedFiles().isEmpty())
            return;
        const QString folder = dialog.selectedFiles().front();
        // Owned by the window: closing it mid-export ends the export with it.
        auto* exporter = new ReportExporter(w->session(), w->inspector()->chart()->metric(), folder, 3, w);
        exporter->setSessionName(w->sessionName());
        if (w->comparison()->runs()) // the A/B shown: a section of the report
            exporter->setComparedRuns(w->comparison()->runs(),
                                      w->inspector()->runDiffView()->model()->metric());
        connect(exporter, &ReportExporter::finished, w, [w, exporter, folder](const QString& err) {
            const QString index = QDir(folder).filePath(QStringLiteral("index.html"));
            w->statusBar()->showMessage(err.isEmpty() ? tr("Report written to %1").arg(index) : err, 8000);
            exporter->deleteLater();
            if (err.isEmpty())
                offerToOpen(w, index);
        });
        w->statusBar()->showMessage(tr("Writing the report into %1…").arg(folder));
        exporter->start();
    });
    file->addSeparator();
    add(file, tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

    QMenu* view = window.menuBar()->addMenu(tr("&View"));
    view->setToolTipsVisible(true);
    InspectorView* inspector = window.inspector();
    m_needComparison << add(view, tr("&Find op"), QKeySequence::Find, inspector,
                            [inspector] { inspector->focusFilter(); });
    const auto step = [w, inspector](int direction) {
        if (!inspector->stepDivergent(direction))
            w->statusBar()->showMessage(tr("No op is past the threshold"), 3000);
    };
    m_needComparison << add(view, tr("&Next op past the threshold"), QKeySequence(Qt::Key_F3), w,
                            [step] { step(+1); });
    m_needComparison << add(view, tr("&Previous op past the threshold"), QKeySequence(Qt::SHIFT | Qt::Key_F3),
                            w, [step] { step(-1); });
    m_needComparison << add(
        view, tr("Op where the &error grows most"), QKeySequence(tr("Ctrl+I")), w, [w, inspector] {
            if (!inspector->selectStrongestGain())
                w->statusBar()->showMessage(
                    tr("No op doubles the error it receives (or the metrics are not in yet)"), 3000);
        });
    m_needComparison << add(view, tr("Go to the op &table"), QKeySequence(tr("Ctrl+1")), inspector,
                            [inspector] {
                                inspector->showTab(0);
                                inspector->focusTable();
                            });
    m_needComparison << add(view, tr("Show the &graph"), QKeySequence(tr("Ctrl+G")), inspector,
                            [inspector] { inspector->showTab(2); });
    // Every tab has its key (issue 56: A/B, Steps and Coverage had none).
    add(view, tr("Show &coverage"), QKeySequence(tr("Ctrl+2")), inspector,
        [inspector] { inspector->showTab(InspectorView::CoverageTab); });
    add(view, tr("Show the &A/B comparison"), QKeySequence(tr("Ctrl+4")), inspector,
        [inspector] { inspector->showTab(InspectorView::AbTab); });
    add(view, tr("Show the &steps"), QKeySequence(tr("Ctrl+5")), inspector,
        [inspector] { inspector->showTab(InspectorView::StepsTab); });
    add(view, tr("Show the &profile (each event's time)"), QKeySequence(tr("Ctrl+6")), inspector,
        [inspector] { inspector->showTab(InspectorView::ProfileTab); });
    add(view, tr("Show the stage &ladder (which stage loses the accuracy)"), QKeySequence(tr("Ctrl+7")),
        inspector, [inspector] { inspector->showTab(InspectorView::StagesTab); });

    QMenu* help = window.menuBar()->addMenu(tr("&Help"));
    add(help, tr("&Keyboard shortcuts"), QKeySequence::HelpContents, this, [this] { showShortcuts(); });
    add(help, tr("&Documentation"), {}, this, [this] { openDocs(); });
    help->addSeparator();
    add(help, tr("Open the XNNPACK int8 &demo"), {}, w, [w] { w->openDemo(); });
    add(help, tr("Open the &QNN 8a8w demo"), {}, w, [w] { w->openQnnDemo(); });
    help->addSeparator();
    add(help, tr("&About Gapscope"), {}, this, [this] { showAbout(); });
    fillRecent();
    refresh();
    qApp->installEventFilter(this);
}

bool WindowActions::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ShortcutOverride || !m_window.isActiveWindow())
        return QObject::eventFilter(watched, event);
    const auto* key = static_cast<QKeyEvent*>(event);
    const QKeySequence pressed(key->keyCombination());
    for (QAction* a : all())
        if (a->isEnabled() && a->shortcut() == pressed) {
            event->ignore(); // not overridden: the shortcut map runs the action
            return true;
        }
    return QObject::eventFilter(watched, event);
}

QList<QAction*> WindowActions::all() const {
    QList<QAction*> out;
    for (QAction* menu : m_window.menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (!a->isSeparator() && !a->menu())
                    out << a;
    return out;
}

void WindowActions::refresh() {
    const auto s = m_window.session();
    const bool busy = m_window.controller()->loader()->busy();
    const QString noComparison = tr("Open a session with an ETDump and an AOT capture first");
    const QString incomplete = !s || !s->comparison ? noComparison
                               : !s->complete       ? (busy ? tr("The metrics are still being computed")
                                                            : tr("Loading was cancelled: reload (F5) first"))
                                                    : QString();
    allow(m_exportCsv, incomplete);
    allow(m_exportReport, incomplete);
    allow(m_exportChart, s && s->comparison ? QString() : noComparison);
    const auto* c = m_window.controller();
    allow(m_saveSession, c->isDemo() ? tr("The demo is built into the app: there are no files to save")
                         : c->paths().isEmpty() ? tr("Open files first")
                                                : QString());
    allow(m_reload, c->isDemo() || !c->paths().isEmpty() ? QString() : tr("Nothing is open"));
    for (QAction* a : m_needComparison)
        allow(a, s && s->comparison ? QString() : noComparison);
    allow(m_checkProduction, !s || !s->comparison ? noComparison
                             : !s->etrecord       ? tr("The check reads the session's ETRecord: open it too")
                                                  : QString());
}

void WindowActions::fillRecent() {
    m_recent->clear();
    const auto recent = AppSettings().recentSessions();
    for (const auto& files : recent) {
        QAction* a =
            m_recent->addAction(describeFiles(files), &m_window, [this, files] { m_window.openAnew(files); });
        a->setToolTip(files.join(QLatin1Char('\n')));
    }
    m_recent->setEnabled(!recent.isEmpty());
    m_window.welcomePage()->setRecent(recent);
}

void WindowActions::showShortcuts() {
    QString rows;
    for (QAction* a : all())
        if (!a->shortcut().isEmpty())
            rows += QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>")
                        .arg(a->text().remove(QLatin1Char('&')).toHtmlEscaped(),
                             a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
    rows += tr("<tr><td>Select an op in the table, the chart or the tensor panel</td><td><b>↑ ↓ / "
               "click</b></td></tr>"
               "<tr><td>Move between the table, the tensor panel and the chart</td><td><b>Tab</b></td></tr>"
               "<tr><td>Zoom and pan a plot; reset</td><td><b>wheel, drag; double-click</b></td></tr>"
               "<tr><td>Save a plot as PNG, PDF or SVG</td><td><b>right-click</b></td></tr>");
    QMessageBox box(&m_window);
    box.setWindowTitle(tr("Keyboard shortcuts"));
    box.setTextFormat(Qt::RichText);
    box.setText(QStringLiteral("<table cellspacing=6>%1</table>").arg(rows));
    box.exec();
}

void WindowActions::showAbout() {
    QMessageBox::about(
        &m_window, tr("About Gapscope"),
        tr("<h3>Gapscope %1</h3><p>Which op made an ExecuTorch model drift: runtime intermediate outputs "
           "(ETDump + debug buffer) aligned with the AOT reference by debug handle.</p>"
           "<p>Reads ExecuTorch %2 artifacts (ETDump schema, ETRecord, Inspector semantics)<br>"
           "Qt %3 (built with %4)</p>")
            .arg(QString::fromStdString(gapscopeVersion()), QString::fromStdString(executorchVersion()),
                 QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
}

void WindowActions::openDocs() {
    // Installed docs, else the source tree's (a build run in place).
    const QString appDir = QCoreApplication::applicationDirPath();
    const QStringList candidates{appDir + QStringLiteral("/../share/doc/gapscope"),
                                 QString::fromUtf8(GAPSCOPE_SOURCE_DIR) + QStringLiteral("/docs")};
    for (const QString& dir : candidates) {
        if (QFileInfo(dir).isDir()) {
            QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(dir).canonicalFilePath()));
            m_window.statusBar()->showMessage(tr("Documentation: %1").arg(QFileInfo(dir).canonicalFilePath()),
                                              8000);
            return;
        }
    }
    m_window.statusBar()->showMessage(tr("The documentation is not installed with this build"), 5000);
}

} // namespace gapscope
