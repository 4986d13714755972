import Foundation
@testable import SluiceSignaling
import Testing

/// `server.tls`'s files: what loads, and that every refusal names the file at fault.
@Suite struct TLSCredentialsTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
        try certificates.certificateAuthority("ca")
        try certificates.leaf("server", san: "DNS:sluice.test,IP:127.0.0.1", issuer: "ca")
        try certificates.leaf("other", san: "DNS:other.test")
    }

    func load(_ certificate: String, _ key: String) throws(TLSCredentialsError) -> TLSCredentials {
        try TLSCredentials.load(certificatePath: certificates.path(certificate), privateKeyPath: certificates.path(key))
    }

    func refusal(_ certificate: String, _ key: String) -> TLSCredentialsError? {
        do {
            _ = try load(certificate, key)
            return nil
        } catch {
            return error
        }
    }

    @Test func aMatchingPairLoads() throws {
        let credentials = try load("server.pem", "server.key")
        #expect(credentials.fingerprintSHA256 == (try certificates.fingerprint("server")))
        #expect(credentials.subject.contains("CN=server"))
        #expect(!credentials.isExpired)
        #expect(credentials.chain.isEmpty)
        #expect(credentials.summary.contains(credentials.fingerprintSHA256))
    }

    @Test func intermediatesAfterTheLeafAreKeptAsTheChain() throws {
        try certificates.write(try certificates.read("server.pem") + (try certificates.read("ca.pem")), to: "fullchain.pem")
        let credentials = try load("fullchain.pem", "server.key")
        #expect(credentials.chain.count == 1)
        #expect(credentials.fingerprintSHA256 == (try certificates.fingerprint("server")))
    }

    @Test func aMissingFileIsNamed() throws {
        let certificate = try #require(refusal("nope.pem", "server.key"))
        #expect(certificate.path == certificates.path("nope.pem"))
        #expect(certificate.description.contains(certificates.path("nope.pem")))
        #expect(certificate.description.contains("No such file"))
        let key = try #require(refusal("server.pem", "nope.key"))
        #expect(key.path == certificates.path("nope.key"))
    }

    @Test func aFileThatIsNoCertificateIsNamed() throws {
        try certificates.write("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n", to: "bad.pem")
        try certificates.write("", to: "empty.pem")
        for name in ["bad.pem", "empty.pem", "server.key"] {
            let error = try #require(refusal(name, "server.key"), "\(name) loaded as a certificate")
            #expect(error.path == certificates.path(name))
            #expect(error.description.contains(certificates.path(name)))
        }
    }

    @Test func aKeyThatIsNoKeyIsNamed() throws {
        try certificates.write("hello\n", to: "bad.key")
        for name in ["bad.key", "server.pem"] {
            let error = try #require(refusal("server.pem", name), "\(name) loaded as a key")
            #expect(error.path == certificates.path(name))
        }
    }

    @Test func aKeyOfAnotherCertificateIsRefusedNamingBoth() throws {
        let error = try #require(refusal("server.pem", "other.key"))
        #expect(error.path == certificates.path("other.key"))
        #expect(error.description.contains("does not match"))
        #expect(error.description.contains(certificates.path("server.pem")))
    }

    @Test func anEncryptedKeyIsRefusedWithoutAPrompt() throws {
        try certificates.openssl(["pkey", "-in", "server.key", "-aes256", "-passout", "pass:secret", "-out", "encrypted.key"])
        let error = try #require(refusal("server.pem", "encrypted.key"))
        #expect(error.path == certificates.path("encrypted.key"))
        #expect(error.description.contains("encrypted"))
    }

    @Test func anRSAPairLoadsToo() throws {
        try certificates.leaf("rsa", san: "DNS:sluice.test", rsa: true)
        #expect(try load("rsa.pem", "rsa.key").fingerprintSHA256 == (try certificates.fingerprint("rsa")))
    }
}

struct HTTPSRedirectTests {
    @Test func keepsTheHostPathAndQuery() {
        #expect(HTTPSRedirect.location(host: "sluice.test:8080", path: "/whip/cam", query: "a=b", httpsPort: 8443,
                                       fallbackHost: "0.0.0.0") == "https://sluice.test:8443/whip/cam?a=b")
        #expect(HTTPSRedirect.location(host: "example.com", path: "/", query: "", httpsPort: 443,
                                       fallbackHost: "x") == "https://example.com/")
        #expect(HTTPSRedirect.location(host: "[::1]:80", path: "/ws", query: "", httpsPort: 8443,
                                       fallbackHost: "x") == "https://[::1]:8443/ws")
    }

    @Test(arguments: [nil, "", "a b", "evil.com/x", "x:y", "[::1", "[zz]", "a@b", "bad\u{0}host", "ü.test"])
    func anOddHostHeaderFallsBack(_ host: String?) {
        #expect(HTTPSRedirect.location(host: host, path: "/p", query: "", httpsPort: 8443, fallbackHost: "127.0.0.1")
                == "https://127.0.0.1:8443/p")
        #expect(HTTPSRedirect.location(host: host, path: "/p", query: "", httpsPort: 8443, fallbackHost: "::1")
                == "https://[::1]:8443/p")
    }

    @Test func aPathThatWouldBreakTheHeaderBecomesTheRoot() {
        #expect(HTTPSRedirect.location(host: "h", path: "/a\r\nSet-Cookie: x", query: "q\n", httpsPort: 1,
                                       fallbackHost: "x") == "https://h:1/")
        #expect(HTTPSRedirect.location(host: "h", path: "relative", query: "", httpsPort: 1, fallbackHost: "x") == "https://h:1/")
    }

    @Test func answers308WithTheLocation() {
        let request = HTTPRequest(method: "POST", path: "/whip/cam", headers: ["host": "sluice.test"])
        let response = HTTPSRedirect.response(for: request, httpsPort: 8443, fallbackHost: "x")
        #expect(response.status == 308)
        #expect(response.headers.first { $0.name == "location" }?.value == "https://sluice.test:8443/whip/cam")
    }
}
