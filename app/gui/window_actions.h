#pragma once

#include <QObject>

class QAction;
class QMenu;

namespace gapscope {

class ProductionChecker;

class MainWindow;

// The window's menus and their actions: what each does, and whether it can run
// now (disabled, with a tooltip saying why, when it cannot). Shortcuts are
// application-wide: a line edit with focus never swallows them.
class WindowActions : public QObject {
    Q_OBJECT
public:
    explicit WindowActions(MainWindow& window);

    // The session, its state or the recent list changed: enable what can run.
    void refresh();
    void fillRecent();

    QAction* reload() const { return m_reload; }
    QAction* exportCsv() const { return m_exportCsv; }
    QAction* exportReport() const { return m_exportReport; }
    QAction* checkProduction() const { return m_checkProduction; }
    ProductionChecker* productionChecker() const { return m_productionChecker; }
    QAction* exportChart() const { return m_exportChart; }
    QAction* saveSession() const { return m_saveSession; }
    QList<QAction*> all() const;

protected:
    // A focused line edit claims some of these keys for itself (Ctrl+E is "end
    // of line" on X11): the window's shortcuts win.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showShortcuts();
    void showAbout();
    void openDocs();

    MainWindow& m_window;
    QMenu* m_recent = nullptr;
    QAction* m_reload = nullptr;
    QAction* m_exportCsv = nullptr;
    QAction* m_exportReport = nullptr;
    QAction* m_checkProduction = nullptr;
    ProductionChecker* m_productionChecker; // owned by the window
    QAction* m_exportChart = nullptr;
    QAction* m_saveSession = nullptr;
    QList<QAction*> m_needComparison; // the view actions
};

} // namespace gapscope
