import Foundation
import SluiceLog
import Testing

/// The two line formats: text as Sluice always wrote it, and JSON that stays one valid object
/// on one line whatever a client put in a string. Parsed back with Foundation's parser, an
/// independent reader.
@Suite struct LogLineTests {
    private func parse(_ line: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func textReadsAsBeforeAndSaysWhatWasHeldBack() {
        let line = LogLine(time: "2026-12-07T12:00:00.000Z", level: .info, component: "signaling",
                           message: "connection 3: session abc connected", fields: [.session("abc"), .connection(3)])
        #expect(line.text == "2026-12-07T12:00:00.000Z info  signaling: connection 3: session abc connected")
        let limited = LogLine(time: "t", level: .warn, component: "media", message: "tcp 127.0.0.1:5: refused",
                              fields: [.remote("127.0.0.1:5"), .suppressed(7)])
        #expect(limited.text == "t warn  media: tcp 127.0.0.1:5: refused (7 similar line(s) held back before this one)")
    }

    @Test func jsonCarriesTheTypedFields() throws {
        let line = LogLine(time: "2026-12-07T12:00:00.000Z", level: .warn, component: "signaling", message: "m",
                           fields: [.session("s1"), .connection(12), .handle("h"), .stream("cam"), .call("c"),
                                    .node("n1"), .peer("n2"), .remote("127.0.0.1:9"), .app("defaultApp"),
                                    .suppressed(3)])
        let object = try parse(line.json)
        #expect(object["time"] as? String == "2026-12-07T12:00:00.000Z")
        #expect(object["level"] as? String == "warn")
        #expect(object["component"] as? String == "signaling")
        #expect(object["message"] as? String == "m")
        #expect(object["session"] as? String == "s1")
        #expect(object["connection"] as? Int == 12)
        #expect(object["handle"] as? String == "h")
        #expect(object["stream"] as? String == "cam")
        #expect(object["call"] as? String == "c")
        #expect(object["node"] as? String == "n1")
        #expect(object["peer"] as? String == "n2")
        #expect(object["remote"] as? String == "127.0.0.1:9")
        #expect(object["app"] as? String == "defaultApp")
        #expect(object["suppressed"] as? Int == 3)
        #expect(object.count == 14)
    }

    @Test func clientStringsStayOneValidLine() throws {
        // Quotes, backslashes, newlines, NUL, other controls, DEL, the line separators, and
        // what bad UTF-8 becomes when decoded (U+FFFD), in a message and in a field.
        let bytes: [UInt8] = [0x61, 0xFF, 0xFE, 0x62, 0xC3]
        let badUTF8 = String(decoding: bytes, as: UTF8.self)
        let nasty = "a\"b\\c\nd\re\tf\u{0}g\u{1F}h\u{7F}i\u{2028}j\u{2029}k" + badUTF8 + "é🎥"
        let line = LogLine(time: "t", level: .info, component: "signaling", message: "publish of \(nasty) refused",
                           fields: [.stream(nasty)])
        let json = line.json
        #expect(!json.contains("\n") && !json.contains("\r") && !json.contains("\u{2028}"))
        #expect(json.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F })
        let object = try parse(json)
        #expect(object["stream"] as? String == nasty)
        #expect(object["message"] as? String == "publish of \(nasty) refused")
    }

    @Test func aFieldGivenTwiceIsWrittenOnceTheFirst() throws {
        let line = LogLine(time: "t", level: .info, component: "c", message: "m", fields: [.stream("a"), .stream("b")])
        #expect(try parse(line.json)["stream"] as? String == "a")
    }

    @Test func aLogWritesItsFormatWithItsBaseFields() throws {
        final class Lines: @unchecked Sendable {
            let lock = NSLock()
            var lines: [String] = []
            func add(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        }
        let captured = Lines()
        let log = Log(level: .info, subsystem: "server", format: .json, fields: [.node("n1")],
                      sink: { captured.add($0) })
        log.debug("not written")
        log.info("written", [.session("s")])
        log.component("cluster").warn("other", [.peer("n2")])
        #expect(captured.lines.count == 2)
        let first = try parse(captured.lines[0])
        #expect(first["component"] as? String == "server")
        #expect(first["session"] as? String == "s")
        #expect(first["node"] as? String == "n1")
        let second = try parse(captured.lines[1])
        #expect(second["component"] as? String == "cluster")
        #expect(second["level"] as? String == "warn")
        #expect(second["peer"] as? String == "n2")
        #expect(second["node"] as? String == "n1")
    }
}
