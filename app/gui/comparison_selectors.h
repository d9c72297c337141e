#pragma once

#include "core/session/session.h"

#include <QWidget>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;

namespace gapscope {

// What is compared, where the user can change it: the program method (for
// multi-method programs), the capture (when several of one method were given)
// and the ETDump run. Each shows only when there is a choice to make.
class ComparisonSelectors : public QWidget {
    Q_OBJECT
public:
    explicit ComparisonSelectors(QWidget* parent = nullptr);

    void setSession(const std::shared_ptr<const Session>& session);
    QComboBox* methods() const { return m_methods; }
    // What the compared capture's reference is (reference_kind.h), shown beside it.
    QLabel* referenceKindLabel() const { return m_referenceKind; }
    QComboBox* captures() const { return m_captures; }
    QComboBox* runs() const { return m_runs; }

signals:
    // Another method or RunData block (no run: the method's default run).
    void compareRequested(const QString& method, std::optional<std::size_t> run);
    // Another of the captures given (its path).
    void captureRequested(const QString& path);

private:
    void fillRuns();
    void fillMethods();
    void fillCaptures();

    std::shared_ptr<const Session> m_session;
    QLabel* m_methodLabel;
    QComboBox* m_methods;
    QLabel* m_captureLabel;
    QLabel* m_referenceKind; // "float model", "quantised simulation (PT2E)": what the gaps are against
    QComboBox* m_captures;
    QComboBox* m_runs;
};

} // namespace gapscope
