#include "app/gui/ab_steps_wiring.h"

#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "app/gui/session_model.h"
#include "app/gui/steps_controller.h"
#include "widgets/graph_view.h"
#include "widgets/op_table_model.h"
#include "widgets/pair_tensor_view.h"
#include "widgets/run_diff_model.h"
#include "widgets/run_diff_view.h"
#include "widgets/step_matrix_view.h"

#include <QLabel>
#include <QTableView>
#include <map>

namespace gapscope {

AbStepsWiring::AbStepsWiring(InspectorView* inspector, SessionModel* model, SessionController* sessions,
                             CompareController* compare, StepsController* steps, StepsController* stepsB,
                             QLabel* status, QObject* parent)
    : QObject(parent), m_inspector(inspector), m_model(model), m_sessions(sessions), m_compare(compare),
      m_steps(steps), m_stepsB(stepsB), m_status(status) {
    connectComparison();
    connectSteps();
}

void AbStepsWiring::sessionFinished() {
    if (m_pendingRow) { // the op clicked in the steps view, at its step
        m_inspector->selectRow(*m_pendingRow);
        m_pendingRow.reset();
    }
    showStepSelection();
}

void AbStepsWiring::connectComparison() {
    connect(m_inspector->runDiffView(), &RunDiffView::metricChanged, this,
            &AbStepsWiring::showDifferenceInGraph);
    connect(m_compare, &CompareController::compared, this, [this](std::shared_ptr<const ComparedRuns> runs) {
        m_inspector->runDiffView()->setRuns(std::move(runs));
        showDifferenceInGraph(); // the tab stays the user's (compareWith showed A/B when asked)
        m_status->setText(tr("A/B: %1 against %2")
                              .arg(QString::fromStdString(m_compare->runs()->a.label),
                                   QString::fromStdString(m_compare->runs()->b.label)));
    });
    // B is replaced when A is (issue 56): "Open instead" paired the new A with the
    // old B, without a word. Another session opened anew closes B.
    connect(m_sessions, &SessionController::sessionReplaced, this, [this] {
        if (!m_compare->hasB())
            return;
        m_compare->closeB();
        m_inspector->stepsView()->setStepsB(nullptr);
        m_inspector->runDiffView()->setMessage(tr(
            "Another session was opened: B was closed with it. File → Compare with… opens a B beside it."));
        showDifferenceInGraph();
    });
    connect(m_compare, &CompareController::failed, this, [this](const QString& message) {
        m_inspector->runDiffView()->setMessage(message);
        m_status->setText(message);
    });
    connect(m_inspector->runDiffView(), &RunDiffView::pairShown, this, [this](std::size_t pair) {
        // The A/B tensors show both rows.
        const auto& runs = m_compare->runs();
        if (!runs || pair >= runs->match.pairs.size())
            return;
        const auto& p = runs->match.pairs[pair];
        const auto rowOf = [](const RunSummary& s, std::optional<std::size_t> at) {
            return at ? std::optional<std::size_t>(s.rows[*at].index) : std::nullopt;
        };
        m_inspector->runDiffView()->tensors()->setPair(m_compare->pairedA(), rowOf(runs->a, p.a),
                                                       m_compare->pairedB(), rowOf(runs->b, p.b));
    });
    connect(m_inspector->runDiffView(), &RunDiffView::pairSelected, this, [this](std::size_t pair) {
        // Chosen by the user: the Ops tab, the chart and the graph follow A's row.
        const auto& runs = m_compare->runs();
        if (runs && pair < runs->match.pairs.size() && runs->match.pairs[pair].a)
            m_inspector->selectRow(runs->a.rows[*runs->match.pairs[pair].a].index);
    });
}

void AbStepsWiring::connectSteps() {
    // Steps: every execution of a decode loop, once per loop; a cell clicked shows that op at that step.
    StepMatrixView* stepsView = m_inspector->stepsView();
    connect(m_steps, &StepsController::computing, this, [stepsView](std::size_t executions) {
        stepsView->setMessage(tr("Comparing %1 steps, each with its own capture…").arg(executions));
    });
    connect(m_steps, &StepsController::progress, this, [stepsView](std::size_t done, std::size_t total) {
        stepsView->setMessage(tr("Comparing steps: %1 of %2…").arg(done).arg(total));
    });
    connect(m_steps, &StepsController::none, stepsView, &StepMatrixView::setMessage);
    connect(m_steps, &StepsController::ready, this,
            [this, stepsView](std::shared_ptr<const SessionSteps> steps) {
                const auto s = m_model->snapshot();
                stepsView->setSteps(steps, s ? s->threshold : kDefaultThreshold);
                showStepSelection();
            });
    // B's decode loop, step by step beside A's.
    connect(m_compare->loaderB(), &SessionLoader::completed, m_stepsB, &StepsController::sessionCompleted);
    connect(m_stepsB, &StepsController::ready, stepsView, &StepMatrixView::setStepsB);
    connect(m_stepsB, &StepsController::none, stepsView, [stepsView] { stepsView->setStepsB(nullptr); });
    connect(stepsView, &StepMatrixView::cellClicked, this,
            [this, stepsView](std::size_t op, std::size_t step) {
                const auto& steps = stepsView->steps();
                const auto s = m_model->snapshot();
                if (!steps || !s || !s->comparison || step >= steps->runs.size())
                    return;
                const auto row = stepsView->matrix().rowAt(op, step);
                m_pendingRow = row >= 0 ? std::optional<std::size_t>(std::size_t(row)) : std::nullopt;
                if (steps->runs[step] == s->comparison->run) {
                    if (m_pendingRow)
                        m_inspector->selectRow(*m_pendingRow);
                    m_pendingRow.reset();
                    showStepSelection();
                    return;
                }
                m_sessions->compare(QString::fromStdString(s->comparison->method), steps->runs[step]);
            });
}

void AbStepsWiring::showDifferenceInGraph() {
    // The graph shows A's nodes: each paired row's "B worse by" on the A/B tab's metric.
    std::map<std::size_t, double> worseBy;
    const auto& runs = m_compare->runs();
    const Metric metric = m_inspector->runDiffView()->model()->metric();
    const auto s = m_model->snapshot();
    if (runs && s && s->comparison && runs->a.rows.size() == s->comparison->rows.size())
        for (const auto& p : runs->match.pairs)
            if (p.a && p.b)
                if (const auto d = metricDelta(runs->a, runs->b, p, metric).worse_by)
                    worseBy[runs->a.rows[*p.a].index] = *d;
    m_inspector->graphView()->setDifference(std::move(worseBy),
                                            QString::fromLatin1(metricInfo(metric).label));
}

void AbStepsWiring::showStepSelection() {
    StepMatrixView* view = m_inspector->stepsView();
    const auto& steps = view->steps();
    const auto s = m_model->snapshot();
    if (!steps || !s || !s->comparison)
        return;
    std::optional<std::size_t> step;
    for (std::size_t k = 0; k < steps->runs.size(); ++k)
        if (steps->runs[k] == s->comparison->run)
            step = k;
    const QModelIndex current = m_inspector->opView()->currentIndex();
    std::optional<std::size_t> op;
    if (step && current.isValid())
        op = view->opOfRow(*step, current.data(OpTableModel::RowIndexRole).toULongLong());
    view->setSelected(op, step);
}

} // namespace gapscope
