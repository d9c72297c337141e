// Opening, merging and saving sessions (issue 27, item 2): what a drop of
// another session onto an open one does, what a saved session keeps, where its
// relative paths point, which session files are refused and why.
#include "app/gui/app_settings.h"
#include "app/gui/compare_controller.h"
#include "app/gui/inspector_view.h"
#include "app/gui/session_controller.h"
#include "app/gui/session_file.h"
#include "gui_test_support.h"
#include "widgets/gap_chart.h"
#include "widgets/metric_box.h"
#include "widgets/op_table_model.h"
#include "widgets/threshold_editor.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>

using namespace gapscope;
using namespace gapscope::test;

namespace {

// A copy of the demo in its own folder: a second session on the disk.
bool copyDemoTo(const QTemporaryDir& dir, QStringList* files = nullptr) {
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors",
                             "capture_float.gscap.safetensors"}) {
        if (!QFile::copy(demoDir().filePath(QString::fromLatin1(name)),
                         dir.filePath(QString::fromLatin1(name))))
            return false;
        if (files)
            *files << dir.filePath(QString::fromLatin1(name));
    }
    return true;
}

void write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

QString filterText(MainWindow& window) {
    return window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->text();
}

} // namespace

class SessionFilesTest : public QObject {
    Q_OBJECT
private slots:
    void init() {
        QSettings().clear();
        AppSettings().setThreshold({Metric::Snr, 20.0});
    }
    void aDropOfAnotherSessionAsksWhatItMeans();
    void aSavedSessionKeepsEveryChoice();
    void relativePathsAreReadAgainstTheSessionFolder();
    void brokenSessionFilesAreRefusedWithTheirReason();
    void saveCompletesTheNameAndReplacesOnlyASessionFile();
    void reloadKeepsTheFilterAndTheSelectedOp();
    void recentSessionsAreAbsoluteAndHeadlessRunsJoinNone();
    void anUnreadableFileIsNeverReplacedByAnother();
};

void SessionFilesTest::aDropOfAnotherSessionAsksWhatItMeans() {
    QTemporaryDir other;
    QStringList otherFiles;
    QVERIFY(copyDemoTo(other, &otherFiles));
    MainWindow window;
    window.show();
    QVERIFY(drop(window, {demoDir().path()})); // nothing open: no question
    QVERIFY(waitShown(window));
    QStringList asked;
    DropAction answer = DropAction::Cancel;
    window.setDropChooser([&](const QStringList& paths, bool canAdd) {
        asked = paths;
        [&] { QVERIFY(canAdd); }();
        return answer;
    });
    window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->setText(QStringLiteral("conv"));

    // Cancel: the session stays as it was.
    QVERIFY(drop(window, {other.path()}));
    QTRY_COMPARE(asked, QStringList{other.path()});
    QCOMPARE(window.controller()->paths(), QStringList{demoDir().path()});

    // Add its files: one session of both folders (the old behaviour, now chosen).
    asked.clear();
    answer = DropAction::AddFiles;
    QVERIFY(drop(window, {other.path()}));
    QVERIFY(waitShown(window));
    QCOMPARE(window.controller()->paths(), (QStringList{other.path(), demoDir().path()}));
    QCOMPARE(filterText(window), QStringLiteral("conv")); // the same session, added to

    // Compare beside: B loads in the A/B tab, A stays.
    answer = DropAction::Beside;
    QVERIFY(drop(window, {other.path()}));
    QTRY_VERIFY(window.comparison()->hasB());
    QCOMPARE(window.comparison()->pathsB(), QStringList{other.path()});
    QTRY_VERIFY_WITH_TIMEOUT(!window.comparison()->busy(), 30000);

    // Open instead: only the dropped folder, and the last session's filter goes.
    answer = DropAction::Open;
    QVERIFY(drop(window, {other.path()}));
    QVERIFY(waitShown(window));
    QCOMPARE(window.controller()->paths(), QStringList{other.path()});
    QCOMPARE(filterText(window), QString());

    // A lone debug buffer adds to the session without a question.
    asked.clear();
    QVERIFY(drop(window, {demoDir().filePath(QStringLiteral("run.debug.bin"))}));
    QVERIFY(waitShown(window));
    QVERIFY(asked.isEmpty());
    QCOMPARE(window.controller()->paths().size(), 2);

    // On a demo, files cannot be added: the choice says so.
    window.openDemo();
    QVERIFY(waitShown(window));
    bool couldAdd = true;
    window.setDropChooser([&](const QStringList&, bool canAdd) {
        couldAdd = canAdd;
        return DropAction::Cancel;
    });
    QVERIFY(drop(window, {other.path()}));
    QTRY_VERIFY(!couldAdd);
}

void SessionFilesTest::aSavedSessionKeepsEveryChoice() {
    QTemporaryDir dir;
    QStringList files;
    QVERIFY(copyDemoTo(dir, &files));
    const QString floatCapture = dir.filePath(QStringLiteral("capture_float.gscap.safetensors"));
    const QString saved = dir.filePath(QStringLiteral("mine.gapscope.json"));
    std::size_t selected = 0;
    QString selectedOp;
    {
        MainWindow window;
        window.openPaths(files);
        QVERIFY(waitShown(window));
        window.controller()->chooseCapture(floatCapture);
        QVERIFY(waitShown(window));
        QComboBox* metric = window.inspector()->thresholdEditor()->metricBox();
        selectMetric(metric, Metric::Cosine);
        emit metric->activated(metric->currentIndex()); // as a user's pick
        window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->setText(QStringLiteral("linear"));
        selected = window.session()->comparison->rows.size() - 1;
        window.inspector()->selectRow(selected);
        selectedOp = window.inspector()->viewState().selectedOp;
        QVERIFY(!selectedOp.isEmpty());
        QVERIFY(window.saveSession(saved));
    }
    const auto file = readSessionFile(saved);
    QVERIFY(file);
    QCOMPARE(file->capture, floatCapture);
    QCOMPARE(file->filter, QStringLiteral("linear"));
    QCOMPARE(file->selectedRow, std::optional<int>(int(selected)));
    QVERIFY(file->threshold);

    AppSettings().setThreshold({Metric::Snr, 20.0}); // the user's own default, later
    MainWindow reopened;
    QVERIFY(reopened.openSessionFile(saved));
    QVERIFY(waitShown(reopened));
    QCOMPARE(QString::fromStdString(reopened.session()->capture_file->path()), floatCapture);
    QCOMPARE(reopened.session()->threshold.metric, file->threshold->metric);
    QCOMPARE(reopened.inspector()->thresholdEditor()->threshold().metric, file->threshold->metric);
    QCOMPARE(filterText(reopened), QStringLiteral("linear"));
    QCOMPARE(reopened.inspector()->chart()->selectedRow(), std::optional<std::size_t>(selected));
    QCOMPARE(reopened.inspector()->viewState().selectedOp, selectedOp);
}

void SessionFilesTest::relativePathsAreReadAgainstTheSessionFolder() {
    // The session's folder holds the float capture under the name the file
    // gives; the current directory holds the quantised one under the same name.
    QTemporaryDir sessionDir, elsewhere;
    QVERIFY(copyDemoTo(sessionDir));
    QVERIFY(QFile::copy(demoDir().filePath(QStringLiteral("capture.gscap.safetensors")),
                        elsewhere.filePath(QStringLiteral("capture_float.gscap.safetensors"))));
    const QString path = sessionDir.filePath(QStringLiteral("rel.gapscope.json"));
    write(path, R"({"gapscope_session": 1, "files": ["run.etdp", "run.debug.bin", "etrecord.bin",
                  "./capture_float.gscap.safetensors"], "capture": "capture_float.gscap.safetensors"})");
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(elsewhere.path()));
    MainWindow window;
    const bool opened = window.openSessionFile(path);
    const bool shown = opened && waitShown(window);
    QDir::setCurrent(cwd);
    QVERIFY(shown);
    QCOMPARE(QString::fromStdString(window.session()->capture_file->path()),
             sessionDir.filePath(QStringLiteral("capture_float.gscap.safetensors")));
}

void SessionFilesTest::brokenSessionFilesAreRefusedWithTheirReason() {
    QTemporaryDir dir;
    const QByteArray deep = "{\"gapscope_session\": 1, \"files\": [\"a\"], \"x\": " + QByteArray(100, '[') +
                            QByteArray(100, ']') + "}";
    const std::vector<std::pair<QByteArray, QString>> cases = {
        {R"({"gapscope_session": 1, "files": []})", QStringLiteral("lists no files")},
        {R"({"gapscope_session": 1, "files": ["a"], "run": 0.5})",
         QStringLiteral("\"run\": 0.5 is not a run")},
        {R"({"gapscope_session": 1, "files": ["a"], "run": 1e10})",
         QStringLiteral("\"run\": 10000000000.0 is")},
        {R"({"gapscope_session": 1, "files": ["a"], "run": -1})", QStringLiteral("\"run\": -1 is not")},
        {R"({"gapscope_session": 1, "files": ["a"], "run": "2"})", QStringLiteral("\"run\": \"2\" is not")},
        {R"({"gapscope_session": 1, "files": ["a", 3]})", QStringLiteral("\"files\"[1]: 3 is not a path")},
        {R"({"gapscope_session": 1, "files": ["a"], "files": ["b"]})",
         QStringLiteral("the key \"files\" appears twice")},
        {deep, QStringLiteral("nested deeper than 32 levels")},
        {R"({"gapscope_session": 1, "files": ["a"], "threshold": {"metric": "psnr", "value": 3}})",
         QStringLiteral("names no metric")},
        {R"({"gapscope_session": 1, "files": ["a"], "threshold": {"metric": "snr"}})",
         QStringLiteral("has no finite \"value\"")},
        {R"({"gapscope_session": 1, "files": ["a"], "capture": 7})",
         QStringLiteral("\"capture\": 7 is not a string")},
        {R"({"gapscope_session": 1, "files": ["a"], "selected_op": {"row": 1.5}})",
         QStringLiteral("\"selected_op\"")},
        {R"({"gapscope_session": 2, "files": ["a"]})", QStringLiteral("not a Gapscope session file")},
        {R"({"gapscope_session": 1, "files": ["a"])", QStringLiteral("not JSON at byte")},
    };
    for (const auto& [bytes, why] : cases) {
        const QString path = dir.filePath(QStringLiteral("bad.gapscope.json"));
        write(path, bytes);
        QString error;
        QVERIFY2(!readSessionFile(path, &error), bytes.constData());
        QVERIFY2(error.startsWith(path + QStringLiteral(": ")), qPrintable(error));
        QVERIFY2(error.contains(why), qPrintable(error + QStringLiteral(" lacks ") + why));
        // The window says the same in its banner and opens nothing.
        MainWindow window;
        QVERIFY(!window.openSessionFile(path));
        QVERIFY(window.banner()->text().contains(why));
    }
    // Over 1 MiB: refused before it is read.
    const QString big = dir.filePath(QStringLiteral("big.gapscope.json"));
    write(big,
          "{\"gapscope_session\": 1, \"files\": [\"a\"], \"pad\": \"" + QByteArray(1 << 20, 'x') + "\"}");
    QString error;
    QVERIFY(!readSessionFile(big, &error));
    QVERIFY2(error.contains(QStringLiteral("over the 1 MiB")), qPrintable(error));
}

void SessionFilesTest::saveCompletesTheNameAndReplacesOnlyASessionFile() {
    QCOMPARE(sessionFileName(QStringLiteral("/a/run")), QStringLiteral("/a/run.gapscope.json"));
    QCOMPARE(sessionFileName(QStringLiteral("/a/run.json")), QStringLiteral("/a/run.gapscope.json"));
    QCOMPARE(sessionFileName(QStringLiteral("/a/run.gapscope.json")), QStringLiteral("/a/run.gapscope.json"));
    QCOMPARE(sessionFileName(QStringLiteral("/a/chart.png")), QStringLiteral("/a/chart.png.gapscope.json"));

    QTemporaryDir dir;
    MainWindow window;
    window.openPaths(demoFiles());
    QVERIFY(waitShown(window));
    // The name typed in the dialog was an existing chart: it is left alone.
    const QString chart = dir.filePath(QStringLiteral("chart.png"));
    write(chart, "\x89PNG\r\n\x1a\n");
    QVERIFY(window.saveSession(chart));
    QCOMPARE(window.controller()->sessionFile(), chart + QStringLiteral(".gapscope.json"));
    QFile png(chart);
    QVERIFY(png.open(QIODevice::ReadOnly));
    QCOMPARE(png.readAll(), QByteArray("\x89PNG\r\n\x1a\n"));
    // A file of the right name that is no session file is not replaced.
    const QString notes = dir.filePath(QStringLiteral("notes.gapscope.json"));
    write(notes, "my notes");
    QVERIFY(!window.saveSession(notes));
    QFile kept(notes);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("my notes"));
    // A session file is replaced.
    const bool replaced = window.saveSession(chart);
    QVERIFY2(replaced, qPrintable(window.statusBar()->currentMessage()));
}

void SessionFilesTest::reloadKeepsTheFilterAndTheSelectedOp() {
    MainWindow window;
    window.openPaths(demoFiles());
    QVERIFY(waitShown(window));
    const std::size_t row = window.session()->comparison->rows.size() / 2;
    window.inspector()->selectRow(row);
    window.findChild<QLineEdit*>(QStringLiteral("opFilter"))->setText(QStringLiteral("a"));
    window.reload();
    QVERIFY(waitShown(window));
    QCOMPARE(window.inspector()->chart()->selectedRow(), std::optional<std::size_t>(row));
    QCOMPARE(window.inspector()->opView()->currentIndex().data(OpTableModel::RowIndexRole).toULongLong(),
             quint64(row));
    QCOMPARE(filterText(window), QStringLiteral("a"));
    // Another session starts with no filter.
    window.openAnew({demoDir().path()});
    QVERIFY(waitShown(window));
    QCOMPARE(filterText(window), QString());
}

void SessionFilesTest::recentSessionsAreAbsoluteAndHeadlessRunsJoinNone() {
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(demoDir().path()));
    {
        MainWindow window;
        window.openPaths({QStringLiteral("run.etdp"), QStringLiteral("run.debug.bin"),
                          QStringLiteral("etrecord.bin"), QStringLiteral("capture.gscap.safetensors")});
        const bool shown = waitShown(window);
        QDir::setCurrent(cwd);
        QVERIFY(shown);
        QCOMPARE(AppSettings().recentSessions().front(), demoFiles());
    }
    QSettings().clear();
    MainWindow headless;
    headless.controller()->setRecordsRecent(false); // what --screenshot and --report set
    headless.openPaths(demoFiles());
    QVERIFY(waitShown(headless));
    QVERIFY(AppSettings().recentSessions().isEmpty());
    // A dump opened alone records the files it was opened with, not its folder's inputs.pt.
    QTemporaryDir dir;
    QVERIFY(copyDemoTo(dir));
    QVERIFY(QFile::copy(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/executorch_layout/inputs.pt"),
                        dir.filePath(QStringLiteral("inputs.pt")))); // torch.save's, from ExecuTorch's layout
    MainWindow single;
    single.openPaths({dir.filePath(QStringLiteral("run.etdp"))});
    QVERIFY(waitShown(single));
    for (const auto& f : single.controller()->paths())
        QVERIFY2(!f.endsWith(QStringLiteral("inputs.pt")), qPrintable(f));
}

void SessionFilesTest::anUnreadableFileIsNeverReplacedByAnother() {
    // The capture named is unreadable (a dangling link here: as root, permissions
    // do not stop a read); the folder holds another capture. Nothing is compared
    // against it in the named one's place, and the banner says why.
    QTemporaryDir dir;
    QVERIFY(copyDemoTo(dir));
    const QString named = dir.filePath(QStringLiteral("mine.gscap.safetensors"));
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("gone.safetensors")), named));
    MainWindow window;
    window.openPaths({dir.filePath(QStringLiteral("run.etdp")), dir.filePath(QStringLiteral("run.debug.bin")),
                      dir.filePath(QStringLiteral("etrecord.bin")),
                      dir.filePath(QStringLiteral("capture.gscap.safetensors")), named});
    QVERIFY(waitShown(window));
    QVERIFY(!window.session()->comparison);
    const QString banner = window.banner()->text();
    QVERIFY2(banner.contains(named) &&
                 banner.contains(QStringLiteral("never compares another file in its place")),
             qPrintable(banner));
    QCOMPARE(banner.count(named), 1); // said once
}

QTEST_MAIN(SessionFilesTest)
#include "tst_session_files.moc"
