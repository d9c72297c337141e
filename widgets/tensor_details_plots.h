#pragma once

#include "widgets/tensor_details.h"

class QCustomPlot;

namespace gapscope {

// The tensor panel's details row drawn from what computeDetails found: the
// difference histogram, the runtime-vs-reference scatter (one blit a pixel) and
// the MSE per channel, each plot cleared and drawn again.
void drawTensorDetails(QCustomPlot* histogram, QCustomPlot* scatter, QCustomPlot* channels,
                       const TensorDetails& details);

} // namespace gapscope
