#pragma once

#include "core/compare/stage_ladder.h"

#include <QWidget>
#include <memory>
#include <optional>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gapscope {

class StageLadderModel;
class FixView;

// The Stages tab (issue 59): which stage each op's loss comes from, then what to
// change. The stages in ladder order above the table (StageLadderModel, sorted
// by value); choosing an op's row selects that op everywhere. Below it, what
// gapscope-capture fix found beside the session (FixView).
class StageLadderView : public QWidget {
    Q_OBJECT
public:
    explicit StageLadderView(QWidget* parent = nullptr);

    // The ladder of the session shown; null: none (yet), with `why` in its place.
    void setLadder(std::shared_ptr<const StageLadder> ladder, const QString& why = {});
    void setSelectedRow(std::optional<std::size_t> row);
    StageLadderModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* header() const { return m_header; }
    // What gapscope-capture fix found, below the ladder (hidden without a report).
    FixView* fixView() const { return m_fix; }

signals:
    void rowSelected(std::size_t row); // a Comparison row

private:
    StageLadderModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_header;
    FixView* m_fix;
    bool m_selecting = false;
};

} // namespace gapscope
