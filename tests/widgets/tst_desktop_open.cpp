// What the file manager does: a double click on an ETDump runs the desktop
// entry's `gapscope %F` with that one file (packaging/test-package checks the
// MIME side). The dump must open as a session, with the ETRecord and capture
// that ExecuTorch's tools wrote beside it, not as "ETRecord missing".
#include "app/gui/main_window.h"
#include "core/session/companion_files.h"

#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace gapscope;

namespace {

const QDir kDemo(QStringLiteral(GAPSCOPE_DEMO_DIR));

bool copyDemo(const QTemporaryDir& dir, const char* name, const QString& as = {}) {
    return QFile::copy(kDemo.filePath(QString::fromLatin1(name)),
                       dir.filePath(as.isEmpty() ? QString::fromLatin1(name) : as));
}

bool waitShown(MainWindow& window) {
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    return shown.wait(30000);
}

} // namespace

class DesktopOpenTest : public QObject {
    Q_OBJECT
private slots:
    void init() { QSettings().clear(); }
    void aDoubleClickedDumpBringsItsCompanions();
    void aDumpAddedToASessionIsOneMoreFile();
    void aTosaRunOpenedAloneBringsItsCompanions();
};

void DesktopOpenTest::aDoubleClickedDumpBringsItsCompanions() {
    QTemporaryDir dir;
    // Names as a device run leaves them; the capture and ETRecord are found by
    // content, whatever their names, and a stranger in the folder is left out.
    QVERIFY(copyDemo(dir, "run.etdp", QStringLiteral("device_run.etdp")));
    QVERIFY(copyDemo(dir, "run.debug.bin", QStringLiteral("device_run.debug.bin")));
    QVERIFY(copyDemo(dir, "etrecord.bin", QStringLiteral("model_etrecord.zip")));
    QVERIFY(copyDemo(dir, "capture_float.gscap.safetensors", QStringLiteral("reference.safetensors")));
    QFile notes(dir.filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("device: SM8650\n");
    notes.close();
    const QString etdp = dir.filePath(QStringLiteral("device_run.etdp"));

    const auto companions = companionFilesOf(etdp.toStdString());
    QCOMPARE(companions.size(), std::size_t{2});

    MainWindow window;
    window.show();
    window.openPaths({etdp});
    QVERIFY(waitShown(window));
    const auto session = window.session();
    QVERIFY(session->dump && session->debug_buffer_file && session->etrecord_file && session->capture_file);
    QVERIFY(session->comparison);
    QVERIFY(!session->comparison->rows.empty());
    QCOMPARE(QString::fromStdString(session->capture_file->path()),
             dir.filePath(QStringLiteral("reference.safetensors")));
}

void DesktopOpenTest::aDumpAddedToASessionIsOneMoreFile() {
    // Dropping another dump on an open session replaces the run, keeping the
    // session's ETRecord and capture: its folder is not searched.
    QTemporaryDir other;
    QVERIFY(copyDemo(other, "run.etdp"));
    QVERIFY(copyDemo(other, "capture.gscap.safetensors", QStringLiteral("other_capture.gscap.safetensors")));
    MainWindow window;
    window.show();
    QStringList demo;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture_float.gscap.safetensors"})
        demo << kDemo.filePath(QString::fromLatin1(name));
    window.openPaths(demo);
    QVERIFY(waitShown(window));
    window.openPaths({other.filePath(QStringLiteral("run.etdp"))});
    QVERIFY(waitShown(window));
    QCOMPARE(QString::fromStdString(window.session()->capture_file->path()),
             kDemo.filePath(QStringLiteral("capture_float.gscap.safetensors")));
}

void DesktopOpenTest::aTosaRunOpenedAloneBringsItsCompanions() {
    // An Arm session (issue 61): the TOSA run stands where an ETDump does, so
    // opened alone it brings the ETRecord and the capture beside it.
    QTemporaryDir dir;
    const QDir arm(QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/arm_tosa_nhwc_fp32"));
    for (const char* name :
         {"tosa_run.safetensors", "etrecord.bin", "capture.gscap.safetensors", "outputs.safetensors"})
        QVERIFY(
            QFile::copy(arm.filePath(QString::fromLatin1(name)), dir.filePath(QString::fromLatin1(name))));
    const QString run = dir.filePath(QStringLiteral("tosa_run.safetensors"));
    MainWindow window;
    window.show();
    window.openPaths({run});
    QVERIFY(waitShown(window));
    const auto session = window.session();
    QVERIFY(session->errors.empty());
    QVERIFY(session->dump && session->etrecord_file && session->capture_file);
    QCOMPARE(QString::fromStdString(session->etdump_file->path()), run);
    QVERIFY(session->comparison);
    QCOMPARE(session->comparison->rows.size(), std::size_t{6});
}

QTEST_MAIN(DesktopOpenTest)
#include "tst_desktop_open.moc"
