#include "app/gui/production_checker.h"

#include "core/report/production_json.h"
#include "core/session/production_build.h"
#include "widgets/post_if_current.h"

#include <QMessageBox>
#include <QWidget>
#include <sstream>

namespace gapscope {

ProductionChecker::ProductionChecker(QWidget* window) : QObject(window), m_window(window) {}

void ProductionChecker::check(std::shared_ptr<const Session> tapped, const QString& path) {
    const std::string where = path.toStdString();
    m_jobs.start([this, tapped, where](std::uint64_t generation, const std::atomic<bool>&) {
        QString title, text, details;
        auto build = loadProductionBuild(where);
        auto result =
            build ? checkAgainstProduction(*tapped, build.value()) : Result<ProductionCheck>(build.error());
        if (!result) {
            title = tr("Could not check against the production build");
            text = QString::fromStdString(result.error().describe());
        } else {
            const ProductionCheck& c = result.value();
            const bool same = c.samePartitions() && c.outputsAgree();
            title = same ? tr("The tapped build is the production build")
                         : tr("The tapped build differs from production");
            QStringList lines;
            for (const auto& f : c.findings)
                lines << QString::fromStdString(f);
            if (!c.runs_compared)
                lines << tr(
                    "No run of the production build was found beside its ETRecord: the program outputs "
                    "were not compared.");
            text = lines.join(QStringLiteral("\n\n"));
            std::ostringstream out;
            writeProductionCheck(out, c);
            details = QString::fromStdString(out.str());
        }
        postIfCurrent(this, m_jobs, generation, [this, title, text, details] {
            emit checked(title, text, details);
            auto* box = new QMessageBox(QMessageBox::Information, title, text, QMessageBox::Close, m_window);
            box->setObjectName(QStringLiteral("productionCheck"));
            box->setTextFormat(Qt::PlainText); // op and file names come from the inputs
            box->setDetailedText(details);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        });
    });
}

} // namespace gapscope
