@testable import SluiceSignaling
import Testing

@Suite struct HookSignatureTests {
    func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(hex.utf8)[...]
        while chars.count >= 2 {
            out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!)
            chars = chars.dropFirst(2)
        }
        return out
    }

    /// RFC 4231 section 4.3, test case 2: a key shorter than the block, ASCII data.
    @Test func rfc4231TestCase2() {
        let mac = HMACDigest.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(HookSignature.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// RFC 4231 section 4.2, test case 1: 20 bytes of 0x0b, "Hi There".
    @Test func rfc4231TestCase1() {
        let mac = HMACDigest.sha256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(mac == bytes(hex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
    }

    /// RFC 4231 section 4.8, test case 7: a key longer than the block (hashed first).
    @Test func rfc4231TestCase7() {
        let data = "This is a test using a larger than block-size key and a larger than block-size data. "
            + "The key needs to be hashed before being used by the HMAC algorithm."
        let mac = HMACDigest.sha256(key: [UInt8](repeating: 0xaa, count: 131), message: Array(data.utf8))
        #expect(HookSignature.hex(mac) == "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
    }

    @Test func emptyKeyAndBody() {
        let mac = HMACDigest.sha256(key: [], message: [])
        #expect(HookSignature.hex(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func headerValue() {
        #expect(HookSignature.header(secret: "Jefe", body: Array("what do ya want for nothing?".utf8))
                == "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HookSignature.headerName == "X-Sluice-Signature")
    }

    @Test func endpointJoinsWithOneSlash() {
        #expect(HookSettings(url: "http://127.0.0.1:9/hooks/", secret: nil).endpoint(for: .publishStream)
                == "http://127.0.0.1:9/hooks/publishStream")
        #expect(HookSettings(url: "http://127.0.0.1:9", secret: nil).endpoint(for: .connect) == "http://127.0.0.1:9/connect")
    }

    @Test func onlyTwoHundredsAllow() {
        #expect(HookOutcome.status(200).allows)
        #expect(HookOutcome.status(204).allows)
        #expect(!HookOutcome.status(302).allows)
        #expect(!HookOutcome.status(403).allows)
        #expect(!HookOutcome.status(500).allows)
        #expect(!HookOutcome.timedOut.allows)
        #expect(!HookOutcome.failed("refused").allows)
        #expect(HookEvent.allCases.filter(\.authorizes) == [.connect, .publishStream, .playStream])
    }
}
