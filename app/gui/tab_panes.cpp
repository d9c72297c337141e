#include "app/gui/tab_panes.h"

#include "app/gui/inspector_view.h"

namespace gapscope {

TabPanes tabPanes(int tab) {
    TabPanes p;
    // The A/B tab has its own tensors (A's reference and runtime among them) and
    // its own chart: A's alone below it would halve its height for nothing. The
    // Profile tab lists events, not ops: the op's tensors and chart give it their height.
    p.tensors = tab != InspectorView::AbTab && tab != InspectorView::ProfileTab;
    // The graph's colours are the gap chart's: its height goes to the graph, which
    // takes three quarters of the rest (issue 56: about 300 px at 768). The Steps tab
    // has its own chart (each op's drift over the steps): its heatmap takes the gap
    // chart's height (issue 56: its rows were 9 px tall). The Stages tab holds two
    // tables (the ladder, the fix): the chart's height goes to them; its curves per
    // stage show on the Ops tab's chart.
    p.chart = tab != InspectorView::AbTab && tab != InspectorView::GraphTab &&
              tab != InspectorView::ProfileTab && tab != InspectorView::StepsTab &&
              tab != InspectorView::StagesTab;
    p.tall =
        tab == InspectorView::GraphTab || tab == InspectorView::StepsTab || tab == InspectorView::StagesTab;
    return p;
}

} // namespace gapscope
