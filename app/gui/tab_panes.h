#pragma once

namespace gapscope {

// What shows below each tab of the inspector (InspectorView::Tab): the op's
// tensors, the gap chart, and whether the tab takes three quarters of the height.
struct TabPanes {
    bool tensors = true;
    bool chart = true;
    bool tall = false;
};
TabPanes tabPanes(int tab);

} // namespace gapscope
