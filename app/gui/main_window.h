#pragma once

#include "core/session/session.h"

#include <QMainWindow>
#include <QStringList>
#include <memory>

class QLabel;
class QLineEdit;
class QCheckBox;
class QComboBox;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableView;
class QTimer;

namespace gapscope {

class CoverageModel;
class GapChart;
class OpFilterProxy;
class OpTableModel;
class SessionLoader;
class TensorPanel;

// Composes the views; owns no analysis logic. Selecting an op anywhere (table,
// chart) selects it everywhere.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    void openPaths(const QStringList& paths);
    void openDemo();
    // Renders the window to a PNG once the current load has finished, then calls `done`.
    void screenshotWhenLoaded(const QString& path, std::function<void(bool)> done);

    std::shared_ptr<const Session> session() const { return m_session; }
    OpTableModel* opModel() const { return m_model; }
    OpFilterProxy* opProxy() const { return m_proxy; }
    QTableView* opView() const { return m_table; }
    GapChart* chart() const { return m_chart; }
    TensorPanel* tensorPanel() const { return m_tensors; }
    QLabel* banner() const { return m_banner; }
    SessionLoader* loader() const { return m_loader; }
    QPushButton* cancelButton() const { return m_cancel; }
    bool exportCsv(const QString& path);

signals:
    void sessionShown();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void showSession(std::shared_ptr<const Session> session, const QStringList& pathErrors);
    void finishSession(std::shared_ptr<const Session> session);
    void selectRow(std::optional<std::size_t> row);
    void stepDivergent(int direction);
    void reload();
    void fillRuns();
    void fillRecent();

    SessionLoader* m_loader;
    OpTableModel* m_model;
    OpFilterProxy* m_proxy;
    CoverageModel* m_coverage;
    QTableView* m_table;
    QTableView* m_coverageView;
    GapChart* m_chart;
    TensorPanel* m_tensors;
    QLabel* m_banner;
    QLineEdit* m_filter;
    QCheckBox* m_aboveThreshold;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QStackedWidget* m_pages;
    std::shared_ptr<const Session> m_session;
    QStringList m_paths;
    bool m_demo = false;
    SessionOptions m_options;
    QComboBox* m_runs;
    QMenu* m_recent = nullptr;
    QByteArray m_savedHeader; // restored once, when the first table is shown
    QTimer* m_chartRefresh;
    std::optional<std::size_t> m_autoSelected; // the row selected for the user, not by them

public:
    bool saveSession(const QString& path);
    bool openSessionFile(const QString& path);
    QComboBox* runSelector() const { return m_runs; }
    bool m_selecting = false;
};

} // namespace gapscope
