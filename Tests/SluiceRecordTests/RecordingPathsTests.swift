import Foundation
import Testing
@testable import SluiceRecord

/// A stream name is whatever a client chose: the path keeps it readable and inside the folder.
struct RecordingPathsTests {
    let start = Date(timeIntervalSince1970: 1_796_119_200)  // 2026-12-01T10:00:00Z

    @Test func theTemplateIsFilledWithSafeNames() {
        let settings = RecordingSettings(folder: "/var/rec/")
        #expect(RecordingPaths.path(settings: settings, app: "studio", stream: "cam-1", start: start)
            == "/var/rec/studio/cam-1/20261201T100000Z")
        #expect(RecordingPaths.path(settings: settings, app: "a b", stream: "../../etc/passwd", start: start)
            == "/var/rec/a_b/.._.._etc_passwd/20261201T100000Z")
    }

    @Test func nothingEscapesTheFolder() {
        let settings = RecordingSettings(folder: "/r", template: "{stream}/../{app}")
        #expect(RecordingPaths.path(settings: settings, app: "x", stream: "..", start: start) == "/r/_/_/x")
        let empty = RecordingSettings(folder: "/r", template: "{stream}")
        #expect(RecordingPaths.path(settings: empty, app: "x", stream: "", start: start) == "/r/_")
        #expect(RecordingPaths.path(settings: empty, app: "x", stream: "名前", start: start) == "/r/__")
    }

    @Test func aTakenNameGetsANumber() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-paths-\(getpid())").path
        try RecordingPaths.prepare(folder: folder)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let base = folder + "/cam"
        #expect(RecordingPaths.unused(base, extension: "webm") == base + ".webm")
        _ = FileManager.default.createFile(atPath: base + ".webm.part", contents: Data())
        #expect(RecordingPaths.unused(base, extension: "webm") == base + "-2.webm")
    }
}
