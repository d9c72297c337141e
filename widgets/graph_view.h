#pragma once

#include "core/common/job_tracker.h"
#include "core/compare/op_graph.h"
#include "core/session/session.h"
#include "widgets/graph_layout.h"

#include <QColor>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QGraphicsRectItem;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QPushButton;

namespace gapscope {

class GraphMiniMap;

// The reference graph of the compared method (the ETRecord graph the capture
// was taken from), laid out top to bottom by Graphviz on a background job.
// Nodes are coloured by their row's gap (rel. L2, as the table), the first
// divergence ⚑ and the op where the error grows most ▲ are marked, and the
// nodes one runtime event covers (a delegate call, a fused kernel) form a
// group that a double-click collapses into one box or expands. Click selects
// the row everywhere; selecting a row centres its node. Large graphs start
// with their groups collapsed; search, wheel zoom, drag and a minimap keep
// them usable. Exports to SVG and PNG.
class GraphView : public QWidget {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    // What the node colours mean, beside the colour chooser (issue 56: none).
    QLabel* legend() const { return m_legend; }
    ~GraphView() override;

    void setSession(std::shared_ptr<const Session> session);
    // Shows `graph` (setSession builds it from the session's reference graph);
    // a graph of more than 300 nodes starts with its groups collapsed.
    void setGraph(OpGraph graph);
    // A newer snapshot of the same session: recoloured, not laid out again.
    void updateSession(std::shared_ptr<const Session> snapshot);
    void setSelectedRow(std::optional<std::size_t> row);
    // Collapses (or expands) one group, or all of them (group -1), and lays out again.
    void setCollapsed(int group, bool collapsed);
    // Selects and centres the next node whose name or op contains `text`; the
    // status says "match k of n" (or that none matches).
    bool find(const QString& text);
    void clearSearch();
    QString exportTo(const QString& path) const; // .svg or .png; error message or empty
    // The A/B comparison's difference per row of this session (how much worse
    // B is, in `label`'s unit: RunDiffModel's "B worse by"); the graph can be
    // coloured by it instead of the gap (red: B worse, green: B better, grey:
    // no partner). Empty: no comparison, the choice is hidden.
    void setDifference(std::map<std::size_t, double> worseBy, const QString& label);
    void setColourByDifference(bool on);
    bool colourByDifference() const;
    // What the fill shows when not the A/B difference: the gap (rel. L2), the
    // op's share of the run's time (white to dark orange, against the largest),
    // or both: the gap's fill with a bar along the box's foot, as long as the
    // time share against the largest. A box standing for several nodes shows
    // the worst gap and the largest time of its rows.
    enum class ColourBy { Gap, Time, GapAndTime };
    void setColourBy(ColourBy by);
    ColourBy colourBy() const;
    // The time bar's length as a fraction of the box's width, 0 when none shows (tests).
    double timeBar(std::size_t row) const;
    // The fill of the box showing a row's node (tests); invalid when none shows it.
    QColor boxBrush(std::size_t row) const;
    // Its border (red: first divergence, orange: the error grows most) and the
    // selection's frame around a box (empty when nothing shown is selected).
    QPen boxPen(std::size_t row) const;
    QRectF selectionFrame() const;
    QPushButton* collapseButton() const { return m_collapseAll; }

    const OpGraph& graph() const { return m_graph; }
    const GraphLayout& layout() const { return m_layout; }
    bool layoutPending() const { return m_pending; }
    // The box shown for a row's node, or -1.
    int boxOfRow(std::size_t row) const; // the box of the node the row compares
    QGraphicsView* view() const { return m_view; }
    QWidget* minimap() const;
    QString status() const;

signals:
    void rowClicked(std::size_t row);
    // A layout finished and the scene shows it.
    void laidOut();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void relayout();
    void showLayout();
    void recolour();

    std::shared_ptr<const Session> m_session;
    OpGraph m_graph;
    GraphLayout m_layout;
    std::vector<bool> m_collapsed;
    std::vector<QGraphicsRectItem*> m_boxes;
    QGraphicsRectItem* m_halo = nullptr; // the selection's frame, in the scene
    std::optional<std::size_t> m_selected;
    std::size_t m_findFrom = 0;
    bool m_pending = false;
    bool m_stale = false; // the graph changed while hidden: lay out when shown
    QGraphicsScene* m_scene;
    QGraphicsView* m_view;
    GraphMiniMap* m_minimap;
    QLineEdit* m_search;
    QPushButton* m_collapseAll;
    QCheckBox* m_byDifference;
    QComboBox* m_colourBy;
    std::vector<QGraphicsRectItem*> m_timeBars; // per box, children of m_boxes
    std::map<std::size_t, double> m_worseBy;
    QString m_differenceLabel;
    QLabel* m_status;
    QLabel* m_legend; // what the colours say: gap, time (log), or the A/B difference
    JobTracker m_jobs;
};

} // namespace gapscope
