#pragma once

#include <QObject>
#include <optional>

class QLabel;

namespace gapscope {

class CompareController;
class InspectorView;
class SessionController;
class SessionModel;
class StepsController;

// The A/B and Steps tabs' wiring: B paired with each complete A, the pairing
// shown (its tensors, A's row selected, the graph coloured by the difference),
// A's and B's decode loops step by step, and a steps cell clicked showing that
// op at that step (comparing that step's run first when it is another).
class AbStepsWiring : public QObject {
    Q_OBJECT
public:
    // The session shown is read from `model`, never out of the inspector.
    AbStepsWiring(InspectorView* inspector, SessionModel* model, SessionController* sessions,
                  CompareController* compare, StepsController* steps, StepsController* stepsB, QLabel* status,
                  QObject* parent);

    // A load completed: the op clicked in the steps view is selected at its step.
    void sessionFinished();
    // The graph's "colour by A/B difference": the A/B tab's values on A's nodes.
    void showDifferenceInGraph();

private:
    void connectComparison();
    void connectSteps();
    // The steps view marks the op and step the window shows.
    void showStepSelection();

    InspectorView* m_inspector;
    SessionModel* m_model;
    SessionController* m_sessions;
    CompareController* m_compare;
    StepsController* m_steps;
    StepsController* m_stepsB;
    QLabel* m_status;
    // A click in the steps view: the row to select once that step's run is shown.
    std::optional<std::size_t> m_pendingRow;
};

} // namespace gapscope
