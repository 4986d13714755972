import SluiceJSON
import SluiceJSONParser
import SluiceSignaling

/// Records what a session sends, in order.
final class RecordingOutput: SessionOutput {
    enum Entry: Equatable {
        case text(String)
        case close(UInt16, String)
    }

    private(set) var entries: [Entry] = []

    func send(text: String) { entries.append(.text(text)) }
    func close(code: UInt16, reason: String) { entries.append(.close(code, reason)) }

    /// Every text message, parsed.
    var messages: [JSONValue] {
        entries.compactMap { entry in
            guard case .text(let text) = entry else { return nil }
            return try? JSONValue.parse(text)
        }
    }

    var closes: [UInt16] {
        entries.compactMap { entry in
            guard case .close(let code, _) = entry else { return nil }
            return code
        }
    }

    var last: JSONValue? { messages.last }

    func removeAll() { entries.removeAll() }
}
