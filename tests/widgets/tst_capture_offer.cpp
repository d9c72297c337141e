// Issue 60: a device's folder without a reference capture, to the table in one
// action. The offer shows above the ETDump's events, its worker starts in the
// background, "Make the reference" makes it (here a stand-in worker that speaks
// the exporter's protocol and writes a real capture of the session), the session
// is read again and the table shows; Cancel ends the worker and writes nothing;
// a failure says why; without an exporter the offer says how to get one.
#include "app/gui/capture_maker.h"
#include "app/gui/capture_offer.h"
#include "gui_test_support.h"

#include <QPushButton>
#include <QTemporaryDir>
#include <cstdlib>

using namespace gapscope;

namespace {

const QString kSession = QStringLiteral(GAPSCOPE_TEST_DATA_DIR "/portable_mha");

// The session's files without its capture, in a folder of the test's own.
QString deviceFolder(const QTemporaryDir& dir) {
    for (const char* name : {"etrecord.bin", "run.etdp", "run.debug.bin"})
        QFile::copy(kSession + QLatin1Char('/') + QLatin1String(name), dir.filePath(QLatin1String(name)));
    return dir.path();
}

// The device's folder opened in `window`, shown.
bool openDevice(MainWindow& window, const QTemporaryDir& dir) {
    window.openPaths({deviceFolder(dir)});
    return test::waitShown(window);
}

void useWorker(const char* flags) {
    const QByteArray command = QByteArray("python3 " GAPSCOPE_FAKE_WORKER " ") +
                               (kSession + QStringLiteral("/capture.gscap.safetensors")).toUtf8() + " " +
                               flags;
    qputenv("GAPSCOPE_CAPTURE", command);
}

} // namespace

class CaptureOfferTest : public QObject {
    Q_OBJECT
private slots:
    void aFolderWithoutCaptureIsOneClickFromItsTable();
    void cancelEndsTheWorkerAndWritesNothing();
    void aFailureSaysWhy();
    void withoutAnExporterTheOfferSaysHowToGetOne();
};

void CaptureOfferTest::aFolderWithoutCaptureIsOneClickFromItsTable() {
    useWorker("");
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(openDevice(window, dir));
    CaptureOffer* offer = window.captureOffer();
    QVERIFY(!window.session()->comparison);
    QVERIFY(offer->isVisibleTo(&window));
    QVERIFY2(offer->status().contains(QStringLiteral("No reference capture")), qPrintable(offer->status()));
    // The worker was started in the background when the offer was shown.
    QTRY_VERIFY(offer->maker()->ready());
    QVERIFY(offer->makeButton()->isEnabled());
    QSignalSpy made(offer, &CaptureOffer::made);
    QTest::mouseClick(offer->makeButton(), Qt::LeftButton);
    QVERIFY(made.wait(20000));
    QCOMPARE(made.at(0).at(0).toString(), dir.filePath(QStringLiteral("capture.gscap.safetensors")));
    QVERIFY(test::waitShown(window));
    QTRY_VERIFY(window.session() && window.session()->comparison && window.session()->complete);
    QVERIFY(!window.session()->comparison->rows.empty());
    QVERIFY(!offer->isVisibleTo(&window));
}

void CaptureOfferTest::cancelEndsTheWorkerAndWritesNothing() {
    useWorker("--slow");
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(openDevice(window, dir));
    CaptureOffer* offer = window.captureOffer();
    QTRY_VERIFY(offer->maker()->ready());
    QSignalSpy progressed(offer->maker(), &CaptureMaker::progressed);
    QTest::mouseClick(offer->makeButton(), Qt::LeftButton);
    QVERIFY(progressed.wait(10000));
    QVERIFY(offer->cancelButton()->isVisibleTo(offer));
    QSignalSpy cancelled(offer->maker(), &CaptureMaker::cancelled);
    QTest::mouseClick(offer->cancelButton(), Qt::LeftButton);
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!offer->maker()->making());
    QVERIFY2(offer->status().startsWith(QStringLiteral("Cancelled")), qPrintable(offer->status()));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("capture.gscap.safetensors"))));
    QVERIFY(offer->makeButton()->isVisibleTo(offer));
}

void CaptureOfferTest::aFailureSaysWhy() {
    useWorker("--fail");
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(openDevice(window, dir));
    CaptureOffer* offer = window.captureOffer();
    QSignalSpy failed(offer->maker(), &CaptureMaker::failed);
    QTest::mouseClick(offer->makeButton(), Qt::LeftButton);
    QVERIFY(failed.wait(10000));
    QVERIFY2(offer->status().contains(QStringLiteral("no representative inputs")),
             qPrintable(offer->status()));
    QVERIFY(!window.session()->comparison);
}

void CaptureOfferTest::withoutAnExporterTheOfferSaysHowToGetOne() {
    qunsetenv("GAPSCOPE_CAPTURE");
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", "/nonexistent");
    QTemporaryDir dir;
    MainWindow window;
    QVERIFY(openDevice(window, dir));
    CaptureOffer* offer = window.captureOffer();
    qputenv("PATH", path);
    QVERIFY(offer->isVisibleTo(&window));
    QVERIFY(!offer->makeButton()->isEnabled());
    QVERIFY2(offer->status().contains(QStringLiteral("pip install")), qPrintable(offer->status()));
}

QTEST_MAIN(CaptureOfferTest)
#include "tst_capture_offer.moc"
