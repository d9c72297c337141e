#pragma once

#include "core/compare/comparison_row.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace gapscope {

class TapFieldsModel;

// A reduced tap's statistics as a sortable table (issue 58), with what they
// prove above it: the tensor panel's page for a STATS tap's row, which is 13
// numbers and no tensor.
class TapFieldsView : public QWidget {
    Q_OBJECT
public:
    explicit TapFieldsView(QWidget* parent = nullptr);
    // A tap row with fields; anything else empties the view.
    void setRow(const ComparisonRow* row);
    TapFieldsModel* model() const { return m_model; }

private:
    TapFieldsModel* m_model;
    QTableView* m_table;
    QLabel* m_note;
};

} // namespace gapscope
