import Foundation
import SluiceJSON
import Testing
@testable import SluiceServer

/// What `GET /api/v1/recordings[/{path}]` reaches and answers: only recordings inside the folder.
@Suite struct RecordingFilesTests {
    let folder: String
    let files: RecordingFiles
    let bytes = (0..<3000).map { UInt8($0 % 251) }

    init() throws {
        folder = NSTemporaryDirectory() + "sluice-recording-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/app/cam", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/app/cam/a.webm", contents: Data(bytes))
        FileManager.default.createFile(atPath: folder + "/app/cam/b.mp4.part", contents: Data([1, 2, 3]))
        FileManager.default.createFile(atPath: folder + "/app/cam/notes.txt", contents: Data([1]))
        FileManager.default.createFile(atPath: folder + "/app/.hidden.webm", contents: Data([1]))
        try FileManager.default.createSymbolicLink(atPath: folder + "/app/link.webm", withDestinationPath: "/etc/hostname")
        files = RecordingFiles(folder: folder)
    }

    @Test func listsOnlyRecordings() {
        let paths = files.list().compactMap { $0["path"]?.stringValue }
        #expect(paths == ["app/cam/a.webm", "app/cam/b.mp4.part"])
        let first = files.list().first
        #expect(first?["bytes"] == JSONValue(3000) && first?["inProgress"] == false)
        #expect(files.list().last?["inProgress"] == true)
    }

    @Test func servesWholeAndRanges() {
        let whole = files.response(relative: "app/cam/a.webm", range: nil)
        #expect(whole.status == 200 && whole.body == bytes && whole.contentType == "video/webm")
        let part = files.response(relative: "app/cam/a.webm", range: "bytes=10-19")
        #expect(part.status == 206 && part.body == Array(bytes[10...19]))
        #expect(part.headers.contains { $0.name == "content-range" && $0.value == "bytes 10-19/3000" })
        let past = files.response(relative: "app/cam/a.webm", range: "bytes=3000-")
        #expect(past.status == 416)
        #expect(files.response(relative: "app/cam/b.mp4.part", range: nil).contentType == "video/mp4")
    }

    @Test(arguments: ["app/cam/notes.txt", "app/.hidden.webm", "../x.webm", "app/../../x.webm", "app/link.webm",
                      "app/cam/missing.webm", "app/cam", "", "app//cam/a.webm\0.webm"])
    func refuses(relative: String) {
        #expect(files.response(relative: relative, range: nil).status == 404, "\(relative)")
    }
}
