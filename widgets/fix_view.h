#pragma once

#include "core/report/fix_report.h"

#include <QWidget>
#include <memory>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace gapscope {

class FixModel;

// What to change (issue 59): gapscope-capture fix's verdict, its candidates
// ranked by what their verified runs recovered, the configuration that reached
// the best (a snippet to copy), and the verified run, openable as B.
class FixView : public QWidget {
    Q_OBJECT
public:
    explicit FixView(QWidget* parent = nullptr);

    // Null: hidden. `error`: the report beside the session could not be read.
    void setReport(std::shared_ptr<const FixReport> report, const QString& error = {});
    FixModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QLabel* verdict() const { return m_verdict; }
    QPlainTextEdit* snippet() const { return m_snippet; }
    QPushButton* openFixed() const { return m_openFixed; }

signals:
    // "Compare with the fixed run": the session folder of the verified run.
    void fixedSessionRequested(const QString& folder);

private:
    FixModel* m_model;
    QTableView* m_table;
    QLabel* m_verdict;
    QPlainTextEdit* m_snippet;
    QPushButton* m_openFixed;
};

} // namespace gapscope
