import Foundation
import SluiceJSON
import SluiceSignaling

/// The files under `recording.folder`, as the admin API lists and serves them
/// (`GET /api/v1/recordings`, `GET /api/v1/recordings/{path}`; docs/protocol.md section 2).
///
/// Only recordings are reachable: regular files named `.webm` or `.mp4` (or those with
/// `.part`, a file being written), at a real path (symlinks resolved) inside the folder's
/// real path, through no hidden or `..` segment. A response is held in memory whole, so one
/// carries at most `maxResponseBytes`: a larger file is fetched in ranges (`Range: bytes=N-`
/// answers up to that much from N), as a browser's video element does by itself.
struct RecordingFiles {
    static let maxResponseBytes = 16 << 20
    static let suffixes = [".webm", ".mp4", ".webm.part", ".mp4.part"]

    let folder: String

    /// Every recording, by path under the folder, sorted.
    func list() -> [JSONValue] {
        guard let root = StaticFiles.realPath(folder),
              let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [(String, JSONValue)] = []
        while let relative = walker.nextObject() as? String {
            guard Self.isRecordingName(relative), !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            var info = stat()
            guard lstat(root + "/" + relative, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modifiedMs = Int(info.st_mtim.tv_sec) * 1000 + Int(info.st_mtim.tv_nsec) / 1_000_000
            found.append((relative, [
                "path": .string(relative),
                "bytes": JSONValue(Int(info.st_size)),
                "modified": JSONValue(modifiedMs),
                "inProgress": .bool(relative.hasSuffix(".part")),
                "url": .string(AdminAPI.recordingsPath + "/" + relative),
            ]))
        }
        return found.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The file at `relative` (or its range), or the error that says why not.
    func response(relative: String, range header: String?) -> HTTPResponse {
        guard Self.isRecordingName(relative),
              let parts = StaticFiles.relativePath("/" + relative), !parts.isEmpty,
              let root = StaticFiles.realPath(folder),
              let real = StaticFiles.realPath(root + "/" + parts), StaticFiles.isInside(real, root: root) else {
            return Self.notFound(relative)
        }
        let fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return Self.notFound(relative) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return Self.notFound(relative) }
        let size = Int(info.st_size)
        let type = real.hasSuffix(".mp4") || real.hasSuffix(".mp4.part") ? "video/mp4" : "video/webm"
        var headers: [(name: String, value: String)] = [("accept-ranges", "bytes"), ("cache-control", "no-cache")]
        switch ByteRange.parse(header, size: size) {
        case .unsatisfiable:
            headers.append(("content-range", "bytes */\(size)"))
            return .error(status: 416, message: "Range not satisfiable: the file has \(size) bytes",
                          reason: "RANGE_NOT_SATISFIABLE", headers: headers)
        case .whole:
            guard size <= Self.maxResponseBytes else {
                return .error(status: 413, message: "The file has \(size) bytes, over \(Self.maxResponseBytes) in one answer: "
                              + "ask for it in ranges (Range: bytes=0-, then from where each answer ends)",
                              reason: "FILE_TOO_LARGE", headers: headers)
            }
            guard let bytes = Self.read(fd, from: 0, count: size) else { return Self.unreadable(relative) }
            return HTTPResponse(status: 200, contentType: type, headers: headers, body: bytes)
        case .range(let asked):
            let range = ByteRange(first: asked.first, last: min(asked.last, asked.first + Self.maxResponseBytes - 1))
            guard let bytes = Self.read(fd, from: range.first, count: range.count) else { return Self.unreadable(relative) }
            let last = range.first + bytes.count - 1
            headers.append(("content-range", "bytes \(range.first)-\(last)/\(size)"))
            return HTTPResponse(status: 206, contentType: type, headers: headers, body: bytes)
        }
    }

    static func isRecordingName(_ path: String) -> Bool {
        suffixes.contains { path.hasSuffix($0) }
    }

    static func notFound(_ relative: String) -> HTTPResponse {
        .error(status: 404, message: "Recording not found: \(relative)", reason: "RECORDING_NOT_FOUND")
    }

    static func unreadable(_ relative: String) -> HTTPResponse {
        .error(status: 500, message: "Recording could not be read: \(relative)", reason: "READ_ERROR")
    }

    /// `count` bytes from `offset`, or fewer when the file is shorter now (a file being
    /// written is served as far as it is); nil on a read error.
    static func read(_ fd: Int32, from offset: Int, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                pread(fd, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { break }
            filled += n
        }
        return filled == count ? bytes : Array(bytes.prefix(filled))
    }
}
