#pragma once

#include "app/gui/session_file.h"
#include "core/compare/stage_ladder.h"
#include "core/session/session.h"

#include <QWidget>
#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableView;
class QSplitter;
class QTimer;

namespace gapscope {

class AppSettings;
class ComparisonSelectors;
class ComparisonBanners;
class CoverageModel;
class ProfileModel;
class ProfileView;
class SessionModel;
class GapChart;
class SpeedAccuracyChart;
class GraphView;
class OpFilterProxy;
class OpTableModel;
class OpTableView;
class TensorPanel;
class RunDiffView;
class StepMatrixView;
class StageLadderView;
class ThresholdEditor;

// The page that inspects one session: the op table (and coverage) above the
// tensor panel, the gap chart below. Selecting an op anywhere selects it
// everywhere. It follows the session model's signals through a staged load:
// the table, then rows as they are measured, then the findings.
class InspectorView : public QWidget {
    Q_OBJECT
public:
    explicit InspectorView(SessionModel* sessions, QWidget* parent = nullptr);

    // The snapshot every view of the page shows (the session model's).
    const std::shared_ptr<const Session>& session() const { return m_session; }

    void selectRow(std::optional<std::size_t> row);
    // The op's tensor figure (heatmaps, histogram, scatter, per channel) as a
    // PNG: the op table's "Export this op's figure". Error message, or empty.
    QString exportOpFigure(std::size_t row, const QString& path);
    // The next (+1) or previous (−1) op past the threshold; false when there is none.
    bool stepDivergent(int direction);
    // Selects the op where the error grows most; false when no op stands out.
    bool selectStrongestGain();
    void focusFilter();
    void focusTable();

    // What the user set for this session: the filter and the selected op (row
    // and name), for a saved session and for Reload.
    SessionFile viewState() const;
    // Applied once the session it was saved with is shown: the filter, and the
    // op selected by its row when the row still holds that op, else by its name.
    void restoreViewState(const SessionFile& view);
    // Another session: the filter and the graph search of the last one go.
    void clearViewState();

    void restoreLayout(const AppSettings& settings);
    void saveLayout(AppSettings& settings) const;

    static constexpr int kMinTableRows = 8;

    OpTableModel* opModel() const { return m_model; }
    OpFilterProxy* opProxy() const { return m_proxy; }
    QTableView* opView() const;
    GapChart* chart() const { return m_chart; }
    SpeedAccuracyChart* speedChart() const { return m_speed; }
    enum ChartTab { GapChartTab, SpeedChartTab };
    // Shows the gap chart (0) or the time-against-gap scatter (1) below the tensors.
    void showChart(int chart);
    TensorPanel* tensorPanel() const { return m_tensors; }
    ProfileModel* profileModel() const;
    GraphView* graphView() const { return m_graph; }
    RunDiffView* runDiffView() const { return m_runDiff; }
    StepMatrixView* stepsView() const { return m_steps; }
    StageLadderView* ladderView() const { return m_ladder; }
    // The stage ladder of the session shown (LadderController): the Stages tab,
    // the op table's "Lost most at" column, the gap chart's curves per stage.
    // Null: none, and `why` in the Stages tab.
    void setLadder(std::shared_ptr<const StageLadder> ladder, const QString& why = {});
    enum Tab { OpsTab, CoverageTab, GraphTab, AbTab, StepsTab, ProfileTab, StagesTab };
    // Shows the Ops (0), Coverage (1), Graph (2), A/B (3), Steps (4), Profile (5) or Stages (6) tab.
    void showTab(int tab);
    QComboBox* runSelector() const;
    QComboBox* methodSelector() const;
    QComboBox* captureSelector() const;
    QLabel* warningBanner() const;
    QLabel* noteBanner() const;
    QLabel* shownCount() const { return m_shownCount; }
    ThresholdEditor* thresholdEditor() const { return m_threshold; }

signals:
    // The user chose another method or RunData block to compare (no run: the
    // method's default run).
    void compareRequested(const QString& method, std::optional<std::size_t> run);
    // The user chose another of the captures given.
    void captureRequested(const QString& path);

private:
    // The tabs above the tensor panel: Ops, Coverage, Graph, A/B and Steps.
    QTabWidget* buildTabs();
    // Stage 1: a newly opened session (its rows may not be measured yet).
    void showSession(std::shared_ptr<const Session> session);
    // Stage 2: a newer snapshot in which rows [first, last] got their metrics.
    void updateSession(std::shared_ptr<const Session> snapshot, std::size_t first, std::size_t last);
    // Stage 3: the final snapshot: outputs, coverage and findings.
    void finishSession(std::shared_ptr<const Session> snapshot);
    // The load was cancelled before every row was measured.
    void measuringStopped();
    void applyFilter();
    // The views judge the snapshot by another threshold (SessionModel::rejudged).
    void rejudge(std::shared_ptr<const Session> snapshot);
    void showShownCount();
    void showWarnings();
    void sizeColumns();
    // Selects and focuses the first op once after a session is shown, unless
    // the user selected one already.
    void autoSelectFirst();

    SessionModel* m_sessions;
    OpTableModel* m_model;
    OpFilterProxy* m_proxy;
    CoverageModel* m_coverage;
    ProfileView* m_profile;
    OpTableView* m_table;
    QTableView* m_coverageView;
    GapChart* m_chart;
    SpeedAccuracyChart* m_speed;
    QTabWidget* m_charts; // the gap chart and the scatter, below the tensors
    TensorPanel* m_tensors;
    GraphView* m_graph;
    RunDiffView* m_runDiff;
    StepMatrixView* m_steps;
    StageLadderView* m_ladder;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_top = nullptr; // the tabs above the tensor panel
    QList<int> m_userSplit;     // its sizes before the Graph tab took more
    QLineEdit* m_filter;
    QLabel* m_shownCount; // "12 of 40 shown (filter)" while a filter hides rows
    ThresholdEditor* m_threshold;
    ComparisonSelectors* m_selectors;
    ComparisonBanners* m_banners; // the comparison's warnings and notes, above the table
    QTimer* m_chartRefresh;
    std::shared_ptr<const Session> m_session;
    QByteArray m_savedHeader;                  // restored once, when the first table is shown
    std::optional<std::size_t> m_autoSelected; // the row selected for the user, not by them
    quint64 m_shown = 0;              // sessions shown: a deferred selection checks it is still current
    bool m_autoSelectPending = false; // the first op is still to be selected for the user
    bool m_selecting = false;
};

} // namespace gapscope
