/// One `Range: bytes=...` of RFC 9110 section 14, as recordings are downloaded with it (a
/// browser seeking in a video asks for `bytes=N-`). Only a single range is served; a list
/// of several is answered whole (200), as the RFC allows a server that ignores Range.
struct ByteRange: Equatable, Sendable {
    /// The first and last byte served, inclusive; `last < size`.
    var first: Int
    var last: Int

    var count: Int { last - first + 1 }

    enum Parsed: Equatable {
        /// No usable Range header (absent, another unit, several ranges, or malformed): the
        /// whole file (RFC 9110 14.2: a server may ignore a Range it cannot read).
        case whole
        case range(ByteRange)
        /// A valid range that lies past the end (416, with `Content-Range: bytes */size`).
        case unsatisfiable
    }

    /// `header` against a file of `size` bytes. `bytes=a-b`, `bytes=a-` and `bytes=-n` (the
    /// last n bytes); `b` past the end is cut to the end.
    static func parse(_ header: String?, size: Int) -> Parsed {
        guard let header else { return .whole }
        let trimmed = header.trimmingSpaces
        guard trimmed.count <= 200, trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let from = spec[..<dash].trimmingSpaces
        let to = spec[spec.index(after: dash)...].trimmingSpaces
        if from.isEmpty {
            // The last `to` bytes.
            guard let suffix = Self.number(to), suffix > 0 else { return to.isEmpty ? .whole : .unsatisfiable }
            guard size > 0 else { return .unsatisfiable }
            return .range(ByteRange(first: max(0, size - suffix), last: size - 1))
        }
        guard let first = Self.number(from) else { return .whole }
        var last = size - 1
        if !to.isEmpty {
            guard let given = Self.number(to), given >= first else { return .whole }
            last = min(given, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .range(ByteRange(first: first, last: last))
    }

    /// Digits only, at most 18 of them (no overflow).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        return Int(text)
    }
}

extension StringProtocol {
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
