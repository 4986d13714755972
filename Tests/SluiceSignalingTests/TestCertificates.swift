import Foundation
import Testing

/// Throwaway certificates made by the `openssl` command line in a fresh temporary folder:
/// a CA, and leaves it signs (or self-signed ones) for the names given.
final class TestCertificates {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs openssl with `arguments` in the folder; fails the test with its output if it fails.
    @discardableResult
    func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")): \(text)")
        return text
    }

    /// A P-256 key in `name`.key.
    func key(_ name: String, rsa: Bool = false) throws {
        if rsa {
            try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(name).key"])
        } else {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "\(name).key"])
        }
    }

    /// A self-signed CA: `name`.key and `name`.pem.
    func certificateAuthority(_ name: String) throws {
        try key(name)
        try openssl(["req", "-x509", "-new", "-key", "\(name).key", "-out", "\(name).pem", "-days", "2",
                     "-subj", "/CN=\(name) test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    }

    /// `name`.key and `name`.pem for the subject alternative names `san` ("DNS:x,IP:127.0.0.1"),
    /// signed by the CA `issuer`, or self-signed when it is nil.
    func leaf(_ name: String, san: String, issuer: String? = nil, rsa: Bool = false) throws {
        try key(name, rsa: rsa)
        guard let issuer else {
            try openssl(["req", "-x509", "-new", "-key", "\(name).key", "-out", "\(name).pem", "-days", "2",
                         "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(san)"])
            return
        }
        try openssl(["req", "-new", "-key", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)"])
        try "subjectAltName=\(san)\nbasicConstraints=CA:FALSE\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", "\(name).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
                     "-CAcreateserial", "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext"])
    }

    /// The SHA-256 fingerprint openssl prints for a PEM certificate ("AB:CD:...").
    func fingerprint(_ name: String) throws -> String {
        let text = try openssl(["x509", "-in", "\(name).pem", "-noout", "-fingerprint", "-sha256"])
        return String(text.split(separator: "=", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
    }

    func read(_ name: String) throws -> String {
        try String(contentsOfFile: path(name), encoding: .utf8)
    }
}
