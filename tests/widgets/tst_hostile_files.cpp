// The app survives hostile files (issue 14): each is opened the way a user
// would (with the demo's other files, as if dropped together); the banner
// names the file and the problem; then the demo still opens.
#include "app/gui/inspector_view.h"
#include "app/gui/main_window.h"
#include "hostile_catalogue.h"
#include "widgets/op_table_model.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using namespace gapscope;

namespace {

const QDir kDemo(QStringLiteral(GAPSCOPE_DEMO_DIR));

QByteArray demoBytes(const char* name) {
    QFile f(kDemo.filePath(QString::fromLatin1(name)));
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(bytes);
    return path;
}

// A safetensors file with one float32 tensor and `document` as its capture metadata.
QByteArray captureWith(const QByteArray& document) {
    QByteArray header = R"({"__metadata__":{"gapscope.aot_capture":")" + document +
                        R"("},"t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    while ((8 + header.size()) % 8 != 0)
        header.append(' ');
    QByteArray out(8, '\0');
    const quint64 n = static_cast<quint64>(header.size());
    std::memcpy(out.data(), &n, 8);
    return out + header + QByteArray(8, '\0');
}

} // namespace

class HostileFilesTest : public QObject {
    Q_OBJECT
private slots:
    void eachCaseIsNamedAndTheDemoStillOpens_data();
    void eachCaseIsNamedAndTheDemoStillOpens();
    void theCatalogueIsNamedAndTheDemoStillOpens_data();
    void theCatalogueIsNamedAndTheDemoStillOpens();
    void anInputRewrittenWhileShownIsReported();
};

void HostileFilesTest::eachCaseIsNamedAndTheDemoStillOpens_data() {
    QTest::addColumn<QString>("kind"); // which of the demo's files is replaced
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("problem");
    QByteArray etdump = demoBytes("run.etdp");
    etdump.replace(4, 8, "XXXXYYYY");
    QTest::newRow("corrupt ETDump") << "etdump"
                                    << "run.etdp" << etdump << "not an ETDump";
    QTest::newRow("truncated ETDump") << "etdump"
                                      << "run.etdp" << demoBytes("run.etdp").left(100) << "run.etdp";
    QTest::newRow("empty ETDump") << "etdump"
                                  << "run.etdp" << QByteArray() << "run.etdp";
    const QByteArray deep = QByteArray(100000, '[') + QByteArray(100000, ']');
    QTest::newRow("capture nested 100,000 deep")
        << "capture"
        << "capture.gscap.safetensors"
        << captureWith(R"({\"format\":\"gapscope.aot_capture\",\"version\":1,\"extra\":)" + deep +
                       R"(,\"records\":[]})")
        << "too deep";
    QTest::newRow("capture with 1e400")
        << "capture"
        << "capture.gscap.safetensors"
        << captureWith(R"({\"format\":\"gapscope.aot_capture\",\"version\":1e400,\"records\":[]})")
        << "'version' must be an integer";
    QTest::newRow("capture of version 2^32 + 1")
        << "capture"
        << "capture.gscap.safetensors"
        << captureWith(R"({\"format\":\"gapscope.aot_capture\",\"version\":4294967297,\"records\":[]})")
        << "version 4294967297 is not supported";
    QTest::newRow("capture of wrong types")
        << "capture"
        << "capture.gscap.safetensors"
        << captureWith(R"({\"format\":\"gapscope.aot_capture\",\"version\":1,\"records\":5})")
        << "'records' must be a list";
    QByteArray etrecord = demoBytes("etrecord.bin");
    etrecord[etrecord.size() / 2] = static_cast<char>(etrecord[etrecord.size() / 2] ^ 0x55);
    QTest::newRow("ETRecord with a flipped byte") << "etrecord"
                                                  << "etrecord.bin" << etrecord << "etrecord.bin";
    QTest::newRow("ETRecord that is not a zip")
        << "etrecord"
        << "etrecord.bin" << QByteArray("PK\x03\x04 not really") << "etrecord.bin";
    QTest::newRow("FIFO as the ETDump") << "fifo"
                                        << "run.etdp" << QByteArray() << "FIFO";
}

void HostileFilesTest::eachCaseIsNamedAndTheDemoStillOpens() {
    QFETCH(QString, kind);
    QFETCH(QString, file);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QStringList paths;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors"}) {
        const QString n = QString::fromLatin1(name);
        if (n == file && kind == QStringLiteral("fifo")) {
            const QString path = dir.filePath(n);
            QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0600) == 0);
            paths << path;
        } else {
            paths << write(dir, n, n == file ? bytes : demoBytes(name));
        }
    }
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths(paths);
    QVERIFY(shown.wait(30000));
    const QString banner = window.banner()->text();
    QVERIFY2(banner.contains(file), qPrintable(banner));
    QVERIFY2(banner.contains(problem), qPrintable(banner));
    // And the app still works.
    window.openDemo();
    QVERIFY(shown.wait(30000));
    QVERIFY(window.inspector()->opModel()->rowCount() > 0);
}

void HostileFilesTest::theCatalogueIsNamedAndTheDemoStillOpens_data() {
    QTest::addColumn<int>("index");
    const auto cases = test::hostileCatalogue(GAPSCOPE_DEMO_DIR);
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        // Outputs are the CLI's and the export dialog's; a folder given as an
        // input is how the app opens a session (it is searched, not refused).
        if (c.role == test::HostileRole::Output || c.special == test::HostileSpecial::Directory)
            continue;
        QTest::newRow(c.id.c_str()) << static_cast<int>(i);
    }
}

void HostileFilesTest::theCatalogueIsNamedAndTheDemoStillOpens() {
    QFETCH(int, index);
    const auto c = test::hostileCatalogue(GAPSCOPE_DEMO_DIR)[static_cast<std::size_t>(index)];
    QTemporaryDir dir;
    const std::string caseDir = dir.filePath(QStringLiteral("case")).toStdString();
    QVERIFY(test::materialiseCase(c, GAPSCOPE_DEMO_DIR, caseDir).empty());
    QStringList paths;
    for (auto role : {test::HostileRole::EtDump, test::HostileRole::DebugBuffer, test::HostileRole::EtRecord,
                      test::HostileRole::Capture})
        paths << QString::fromStdString(caseDir + "/" + test::hostileFileName(role));
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths(paths);
    QVERIFY(shown.wait(30000));
    if (c.report) {
        // Names made to attack a report's reader: nothing wrong with the session,
        // which opens with every row; the table shows the names as text.
        QVERIFY2(window.banner()->isHidden(), qPrintable(window.banner()->text()));
        QVERIFY(window.inspector()->opModel()->rowCount() > 0);
        QVERIFY(!window.inspector()->opModel()->index(0, OpTableModel::AotOps).data().toString().isEmpty());
        return;
    }
    // The error banner, or the warning banner for what the core only warns about.
    const QString text = c.warning ? window.inspector()->warningBanner()->text() : window.banner()->text();
    const QString file = QString::fromLatin1(test::hostileFileName(c.role));
    QVERIFY2(text.contains(file), qPrintable(text));
    // The problem, as the core says it (the CLI prints the same words).
    const QString message = QString::fromStdString(c.appExpected.empty() ? c.expected : c.appExpected)
                                .section(QStringLiteral(": "), 1);
    QVERIFY2(text.contains(message.left(40)), qPrintable(QStringLiteral("%1\nlacks: %2").arg(text, message)));
    window.openDemo();
    QVERIFY(shown.wait(30000));
    QVERIFY(window.inspector()->opModel()->rowCount() > 0);
}

void HostileFilesTest::anInputRewrittenWhileShownIsReported() {
    QTemporaryDir dir;
    QStringList paths;
    for (const char* name : {"run.etdp", "run.debug.bin", "etrecord.bin", "capture.gscap.safetensors"})
        paths << write(dir, QString::fromLatin1(name), demoBytes(name));
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::sessionShown);
    window.openPaths(paths);
    QVERIFY(shown.wait(30000));
    QVERIFY(window.banner()->isHidden());
    // A new device run cuts the debug buffer short while the app shows it.
    QVERIFY(QFile::resize(paths[1], 16));
    window.warnIfInputsChanged(); // what activating the window does
    QVERIFY(!window.banner()->isHidden());
    QVERIFY2(window.banner()->text().contains(QStringLiteral("run.debug.bin changed on disk")),
             qPrintable(window.banner()->text()));
    QVERIFY(window.banner()->text().contains(QStringLiteral("F5")));
    // Selecting ops reads the vanished pages: zeros, no SIGBUS.
    for (int row = 0; row < window.inspector()->opModel()->rowCount(); ++row)
        window.inspector()->selectRow(static_cast<std::size_t>(row));
    QCoreApplication::processEvents();
}

QTEST_MAIN(HostileFilesTest)
#include "tst_hostile_files.moc"
