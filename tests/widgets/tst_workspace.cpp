// Issue 24: the files of a session are read once. Switching the method, the run
// or the capture recomputes the comparison over the loader's workspace and reads
// no file: the test deletes the files after opening them, and every switch must
// still compare, with the same numbers a fresh load gives. File → Reload is the
// one request that looks at the disk again.
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_loader.h"
#include "core/report/compare_report.h"
#include "core/session/session.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace gapscope;

namespace {

const QDir kData(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/multimethod_portable"));

bool waitShown(MainWindow& window) {
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    return shown.wait(30000);
}

// The comparison as the JSON report writes it, without the inputs' paths (the
// app's copies are in a temporary folder): equal documents, equal numbers.
std::string reportOf(const Session& s) {
    return comparisonToJson(*s.comparison, ReportContext{}).dump();
}

// What a fresh load of the committed files gives for this method and run.
std::string freshReport(const std::string& method, std::optional<std::size_t> run) {
    std::vector<Error> errors;
    const auto inputs = sessionInputsFromPaths({kData.absolutePath().toStdString()}, errors);
    SessionOptions options;
    options.comparison.method = method;
    options.comparison.run = run;
    const auto session = loadSession(inputs, options);
    return session->comparison ? reportOf(*session) : std::string("no comparison");
}

} // namespace

class WorkspaceTest : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().clear(); }
    void switchingMethodRunOrCaptureReadsNoFile();
    void aSecondSessionOpensBesideTheFirst();
};

void WorkspaceTest::switchingMethodRunOrCaptureReadsNoFile() {
    QTemporaryDir dir;
    for (const auto& name : kData.entryList(QDir::Files))
        QVERIFY(QFile::copy(kData.filePath(name), dir.filePath(name)));
    MainWindow window;
    window.show();
    // (A path that cannot be read compares nothing at all: tst_session_files.)
    window.openPaths({dir.path()});
    QVERIFY(waitShown(window));
    QVERIFY(window.session()->complete);
    QCOMPARE(window.session()->comparison->method, std::string("forward"));
    const std::shared_ptr<Workspace> workspace = window.controller()->loader()->workspace();
    QVERIFY(workspace);
    const std::size_t reads = workspace->reads();
    QVERIFY(reads >= 3); // the ETDump, the ETRecord, the captures (and the ETRecord's digest)

    // From here on, reading a file would fail: there are none.
    for (const auto& name : QDir(dir.path()).entryList(QDir::Files))
        QVERIFY(QFile::remove(dir.filePath(name)));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());

    const auto checkSwitched = [&](const char* method, std::size_t run) {
        const Session& s = *window.session();
        QVERIFY2(s.errors.empty(), s.errors.empty() ? "" : s.errors.front().describe().c_str());
        QVERIFY(s.complete && s.comparison);
        QCOMPARE(s.comparison->method, std::string(method));
        QCOMPARE(s.comparison->run, run);
        QCOMPARE(window.controller()->loader()->workspace(), workspace);
        QCOMPARE(workspace->reads(), reads); // nothing parsed or hashed again
        QCOMPARE(reportOf(s), freshReport(method, run));
    };

    QComboBox* methods = window.inspector()->methodSelector();
    emit methods->activated(methods->findText(QStringLiteral("prefill")));
    QVERIFY(waitShown(window));
    checkSwitched("prefill", 1);

    emit window.inspector()->runSelector()->activated(3);
    QVERIFY(waitShown(window));
    checkSwitched("forward", 3);

    // The capture by its path, as the Reference selector asks for it.
    window.controller()->chooseCapture(dir.filePath(QStringLiteral("capture.forward.gscap.safetensors")));
    QVERIFY(waitShown(window));
    checkSwitched("forward", 3);

    // Reload looks at the disk again: a new workspace, which finds no file.
    window.controller()->reload();
    QVERIFY(waitShown(window));
    QVERIFY(window.controller()->loader()->workspace() != workspace);
    QVERIFY(!window.session()->comparison);
}

// The loader opens another folder beside the loaded one: a second file set of
// the same workspace, compared on its own; a switch then compares that set.
void WorkspaceTest::aSecondSessionOpensBesideTheFirst() {
    SessionLoader loader;
    std::shared_ptr<const Session> last;
    connect(&loader, &SessionLoader::completed, this, [&](std::shared_ptr<const Session> s) { last = s; });
    QSignalSpy completed(&loader, &SessionLoader::completed);
    loader.loadPaths({kData.absolutePath()});
    QVERIFY(completed.wait(30000));
    const auto workspace = loader.workspace();
    QVERIFY(workspace);
    QCOMPARE(loader.fileSet(), FileSetId{0});

    loader.loadBeside({QStringLiteral(GAPSCOPE_DEMO_DIR)}, loader.workspace());
    QVERIFY(completed.wait(30000));
    QCOMPARE(loader.workspace(), workspace);
    QCOMPARE(workspace->fileSetCount(), std::size_t{2});
    QCOMPARE(loader.fileSet(), FileSetId{1});
    std::vector<Error> errors;
    const auto alone = loadSession(sessionInputsFromPaths({GAPSCOPE_DEMO_DIR}, errors));
    QCOMPARE(reportOf(*last), reportOf(*alone));

    // A switch compares the set loaded last, over the same workspace.
    const auto reads = workspace->reads();
    SessionOptions other;
    other.comparison.run = 0;
    QVERIFY(loader.recompare(other));
    QVERIFY(completed.wait(30000));
    QCOMPARE(loader.fileSet(), FileSetId{1});
    QCOMPARE(last->comparison->run, std::size_t{0});
    QCOMPARE(reportOf(*last),
             reportOf(*loadSession(sessionInputsFromPaths({GAPSCOPE_DEMO_DIR}, errors), other)));
    QCOMPARE(workspace->reads(), reads);
    // The first set is still there to compare.
    QVERIFY(workspace->fileSet(0));
    QVERIFY(!workspace->fileSet(0)->inputs.files.empty());
}

QTEST_MAIN(WorkspaceTest)
#include "tst_workspace.moc"
