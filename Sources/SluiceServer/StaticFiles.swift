import Foundation
import SluiceSignaling

/// Serves the browser demo and SDK (`server.webRoot`, normally `web/`) over plain GET.
///
/// Files are small and read on every request, so an edited page shows on reload and nothing
/// is cached in memory. A request can only reach a regular file whose real path (symlinks
/// resolved) lies inside the root's real path; anything else is a 404.
public struct StaticFiles: Sendable {
    /// Larger files are refused: the demo's files are a few kB, and a response is held in
    /// memory whole.
    public static let defaultMaxFileBytes = 4 << 20

    /// The root as configured: absolute, or relative to the working directory.
    public let root: String
    public let maxFileBytes: Int

    public init(root: String, maxFileBytes: Int = StaticFiles.defaultMaxFileBytes) {
        self.root = root
        self.maxFileBytes = maxFileBytes
    }

    /// Answers GET (and HEAD) on every path that no longer prefix claims: `/` is the root's
    /// index.html, `/sdk/sluice.js` is `<root>/sdk/sluice.js`.
    public func register(on router: HTTPRouter) {
        router.add("GET", "/") { request in self.response(for: request) }
    }

    public func response(for request: HTTPRequest) -> HTTPResponse {
        guard let relative = StaticFiles.relativePath(request.path) else { return .notFound }
        // Resolved per request, so the root may be created or replaced while the server runs.
        guard let rootReal = StaticFiles.realPath(root) else { return .notFound }
        guard var real = StaticFiles.realPath(relative.isEmpty ? rootReal : rootReal + "/" + relative),
              StaticFiles.isInside(real, root: rootReal) else {
            return .notFound
        }
        if StaticFiles.isDirectory(real) {
            guard let index = StaticFiles.realPath(real + "/index.html"), StaticFiles.isInside(index, root: rootReal) else {
                return .notFound
            }
            real = index
        }
        switch StaticFiles.read(real, limit: maxFileBytes) {
        case .success(let bytes):
            return HTTPResponse(status: 200, contentType: StaticFiles.contentType(forPath: real),
                                headers: [("cache-control", "no-cache"), ("x-content-type-options", "nosniff")],
                                body: bytes)
        case .failure(.tooLarge):
            return .error(status: 500, message: "File too large to serve", reason: "FILE_TOO_LARGE")
        case .failure(.unreadable):
            return .notFound
        }
    }

    /// The request path as a path under the root ("" for the root itself), or nil when it
    /// could name something outside it or hidden: `..` and `.` segments, dot files (`.git`),
    /// backslashes and NUL bytes are all refused before the file system sees them.
    static func relativePath(_ path: String) -> String? {
        guard path.hasPrefix("/"), !path.contains("\0"), !path.contains("\\") else { return nil }
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment.hasPrefix(".") { return nil }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "htm": "text/html; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "json": "application/json",
        "txt": "text/plain; charset=utf-8",
        "ico": "image/x-icon",
    ]

    static func contentType(forPath path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return contentTypes[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    enum ReadFailure: Error {
        case unreadable
        case tooLarge
    }

    /// The whole of a regular file, opened without following a final symlink (the path is
    /// already resolved; this closes the race of one being put there since).
    static func read(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.unreadable) }
        let size = Int(info.st_size)
        guard size <= limit else { return .failure(.tooLarge) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Foundation.read(fd, base + filled, size - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        // A file that shrank while being read is served as far as it went.
        return .success(filled == size ? bytes : Array(bytes.prefix(filled)))
    }
}
