import Foundation
import SluiceJSON
import Testing
@testable import SluiceServer

/// `server.tls` and `apps[].hooks.caFile`: the keys, and the files checked when the config loads.
struct ServerConfigTLSTests {
    private func parse(_ text: String) throws -> ServerConfig {
        try parseConfig(text)
    }

    @Test func readsTheKeys() throws {
        let config = try parse(#"{"server": {"port": 8443, "tls": {"certificate": "c.pem", "privateKey": "k.pem", "redirectPort": 8080}},"#
                               + #" "apps": [{"key": "a", "hooks": {"url": "https://h/x", "caFile": "ca.pem"}}]}"#)
        #expect(config.tlsCertificatePath == "c.pem" && config.tlsPrivateKeyPath == "k.pem")
        #expect(config.tlsRedirectPort == 8080)
        #expect(config.apps.first?.hooksCAFile == "ca.pem")
        let plain = try parse("{}")
        #expect(plain.tlsCertificatePath == nil && plain.tlsRedirectPort == nil)
        #expect(try plain.loadTLSCredentials() == nil)
    }

    @Test(arguments: [
        (#"{"server": {"tls": {"certificate": "c.pem"}}}"#, "server.tls.privateKey", "is required"),
        (#"{"server": {"tls": {"privateKey": "k.pem"}}}"#, "server.tls.certificate", "is required"),
        (#"{"server": {"tls": {"certificate": "", "privateKey": "k"}}}"#, "server.tls.certificate", "non-empty"),
        (#"{"server": {"tls": {"certificate": 1, "privateKey": "k"}}}"#, "server.tls.certificate", "must be a string"),
        (#"{"server": {"tls": {"redirectPort": 80}}}"#, "server.tls.redirectPort", "needs server.tls.certificate"),
        (#"{"server": {"port": 8443, "tls": {"certificate": "c", "privateKey": "k", "redirectPort": 8443}}}"#,
         "server.tls.redirectPort", "must differ"),
        (#"{"server": {"tls": {"cert": "c"}}}"#, "server.tls.cert", "not a known setting"),
        (#"{"apps": [{"key": "a", "hooks": {"url": "https://h", "caFile": ""}}]}"#, "apps[0].hooks.caFile", "non-empty"),
    ])
    func badKeysAreNamed(text: String, key: String, problem: String) throws {
        try expectConfigError(text, key: key, problem: problem)
    }

    /// Loading the config reads the files: a missing or mismatched one is a config error that
    /// names the file (so `--check-config` and the start both refuse it).
    @Test func loadingChecksTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-config-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["one", "two"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                 "-keyout", folder.appendingPathComponent("\(name).key").path,
                                 "-out", folder.appendingPathComponent("\(name).pem").path, "-days", "1", "-subj", "/CN=\(name)"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
        }
        func load(certificate: String, key: String, caFile: String? = nil) throws -> ServerConfig {
            var object: JSONObject = ["server": ["tls": ["certificate": .string(folder.appendingPathComponent(certificate).path),
                                                          "privateKey": .string(folder.appendingPathComponent(key).path)]]]
            if let caFile {
                object["apps"] = [["key": "a", "hooks": ["url": "https://h/x", "caFile": .string(folder.appendingPathComponent(caFile).path)]]]
            }
            let path = folder.appendingPathComponent("sluice.json").path
            try Data(JSONValue.object(object).serializedBytes()).write(to: URL(fileURLWithPath: path))
            return try ServerConfig.load(path: path)
        }
        let good = try load(certificate: "one.pem", key: "one.key", caFile: "two.pem")
        #expect(try good.loadTLSCredentials()?.subject.contains("CN=one") == true)

        let cases: [(String, String, String?, String, String)] = [
            ("missing.pem", "one.key", nil, "server.tls.certificate", "missing.pem"),
            ("one.pem", "missing.key", nil, "server.tls.privateKey", "missing.key"),
            ("one.pem", "two.key", nil, "server.tls.privateKey", "does not match"),
            ("one.key", "one.key", nil, "server.tls.certificate", "no PEM certificate"),
            ("one.pem", "one.key", "missing-ca.pem", "apps[0].hooks.caFile", "missing-ca.pem"),
        ]
        for (certificate, key, caFile, configKey, problem) in cases {
            do {
                _ = try load(certificate: certificate, key: key, caFile: caFile)
                Issue.record("accepted \(certificate) with \(key)")
            } catch let error as ConfigError {
                #expect(error.key == configKey, "\(error)")
                #expect(error.problem.contains(problem), "\(error.problem)")
            }
        }
    }
}
