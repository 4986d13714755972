import Foundation

/// Debian's ffmpeg, ffprobe and mkvinfo, run as the checks of every written file.
enum MediaTools {
    static let ffmpeg = "/usr/bin/ffmpeg"
    static let ffprobe = "/usr/bin/ffprobe"
    static let mkvinfo = "/usr/bin/mkvinfo"

    static var available: Bool {
        [ffmpeg, ffprobe].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static var mkvinfoAvailable: Bool { FileManager.default.isExecutableFile(atPath: mkvinfo) }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both before waiting, so a full pipe cannot block the tool.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                   stderr: String(decoding: errData, as: UTF8.self))
    }

    /// `ffprobe -show_streams -show_format` as JSON.
    struct Probe {
        var streams: [[String: Any]]
        var format: [String: Any]

        func stream(_ type: String) -> [String: Any]? { streams.first { $0["codec_type"] as? String == type } }
        var durationSeconds: Double { Double(format["duration"] as? String ?? "") ?? 0 }
    }

    static func probe(_ path: String) throws -> Probe? {
        let result = try run(ffprobe, ["-v", "error", "-show_streams", "-show_format", "-of", "json", path])
        guard result.status == 0,
              let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else { return nil }
        return Probe(streams: json["streams"] as? [[String: Any]] ?? [], format: json["format"] as? [String: Any] ?? [:])
    }

    /// The frames ffprobe decodes from the first video stream (`-count_frames`).
    static func decodedVideoFrames(_ path: String) throws -> Int {
        let result = try run(ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                       "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path])
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The packets ffprobe reads (no decoding) and the last one's end, in seconds.
    static func packets(_ path: String) throws -> (count: Int, lastSeconds: Double) {
        let result = try run(ffprobe, ["-v", "error", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        let times = result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return (times.count, times.max() ?? 0)
    }

    /// `ffmpeg -v error -i F -f null -`: what it printed (empty means no decode error) and its status.
    static func decodeErrors(_ path: String) throws -> (status: Int32, errors: String) {
        let result = try run(ffmpeg, ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
        return (result.status, result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// A fresh directory per test, removed by the test.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "sluice-record-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
