import Foundation

/// Where a recording goes: `recording.folder` plus the template, with every name made safe
/// for a path (a stream name is any string a client chose).
public enum RecordingPaths {
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    /// Makes the folder (and its parents) and checks that a file can be made in it.
    static func prepare(folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw Problem(description: "cannot make \(folder): \(error.localizedDescription)")
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw Problem(description: "cannot write in \(folder): \(String(cString: strerror(errno)))")
        }
    }

    /// The path of a recording that starts at `start`, without its extension. `{app}` and
    /// `{stream}` become safe file names; a template part that is empty or `.`/`..` after
    /// that becomes `_`, so nothing escapes the folder.
    public static func path(settings: RecordingSettings, app: String, stream: String, start: Date) -> String {
        let expanded = settings.template
            .replacingOccurrences(of: "{app}", with: safeName(app))
            .replacingOccurrences(of: "{stream}", with: safeName(stream))
            .replacingOccurrences(of: "{start}", with: stamp(start))
        let parts = expanded.split(separator: "/", omittingEmptySubsequences: true).map { part -> String in
            let safe = safeName(String(part))
            return safe == "." || safe == ".." ? "_" : safe
        }
        let folder = settings.folder.hasSuffix("/") ? String(settings.folder.dropLast()) : settings.folder
        return ([folder] + (parts.isEmpty ? ["_"] : parts)).joined(separator: "/")
    }

    /// `base.ext`, or `base-2.ext`, `base-3.ext`... when a file (or its `.part`) is there: two
    /// recordings of one stream in the same second keep both files.
    static func unused(_ base: String, extension ext: String) -> String {
        var candidate = "\(base).\(ext)"
        var n = 2
        while FileManager.default.fileExists(atPath: candidate) || FileManager.default.fileExists(atPath: candidate + ".part") {
            candidate = "\(base)-\(n).\(ext)"
            n += 1
        }
        return candidate
    }

    /// Letters, digits, `.`, `_`, `-` stay (ASCII only); anything else becomes `_`. At most
    /// 100 characters.
    static func safeName(_ text: String) -> String {
        let kept = text.unicodeScalars.prefix(100).map { scalar -> Character in
            let v = scalar.value
            let ok = (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v)
                || v == 0x2E || v == 0x5F || v == 0x2D
            return ok ? Character(scalar) : "_"
        }
        return kept.isEmpty ? "_" : String(kept)
    }

    /// `20261201T101500Z`: sorts by time, and has no `:` (which some file systems refuse).
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
