#pragma once

#include <QWidget>
#include <memory>

namespace gapscope {

class FrozenColumnsTableView;
class ProfileModel;
struct Session;

// The Profile tab: the Inspector's timing table (ProfileModel) behind a numeric
// sort, the event's name frozen at the left, and a line saying what it holds.
class ProfileView : public QWidget {
    Q_OBJECT
public:
    explicit ProfileView(QWidget* parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    ProfileModel* model() const { return m_model; }
    FrozenColumnsTableView* table() const { return m_table; }

private:
    ProfileModel* m_model;
    FrozenColumnsTableView* m_table;
};

} // namespace gapscope
