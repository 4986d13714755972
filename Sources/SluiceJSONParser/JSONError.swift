import CJansson

/// Why a document did not parse, with jansson's position and text.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    /// Byte offset into the input.
    public var position: Int
    public var text: String

    public init(line: Int, column: Int, position: Int, text: String) {
        self.line = line
        self.column = column
        self.position = position
        self.text = text
    }

    public var description: String { "\(text) at line \(line), column \(column)" }
}

extension JSONError {
    init(jansson error: json_error_t) {
        var error = error
        let text = withUnsafeBytes(of: &error.text) { raw -> String in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
        self.init(line: Int(error.line), column: Int(error.column), position: Int(error.position), text: text)
    }
}
