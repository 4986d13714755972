import SluiceSignaling

/// `server.tls` and `apps[].hooks.caFile`: reading the keys, and checking the files they name.
extension ServerConfig {
    static func parseTLS(_ tls: ConfigReader, into config: inout ServerConfig) throws(ConfigError) {
        config.tlsCertificatePath = try optionalPath(tls, "certificate")
        config.tlsPrivateKeyPath = try optionalPath(tls, "privateKey")
        if tls.object["redirectPort"] != nil {
            config.tlsRedirectPort = try tls.int("redirectPort", default: 0, range: 1...65535)
        }
        switch (config.tlsCertificatePath, config.tlsPrivateKeyPath) {
        case (nil, nil):
            if config.tlsRedirectPort != nil {
                throw ConfigError(key: "server.tls.redirectPort", problem: "needs server.tls.certificate and .privateKey")
            }
        case (nil, _):
            throw ConfigError(key: "server.tls.certificate", problem: "is required with server.tls.privateKey")
        case (_, nil):
            throw ConfigError(key: "server.tls.privateKey", problem: "is required with server.tls.certificate")
        default:
            if config.tlsRedirectPort == config.httpPort {
                throw ConfigError(key: "server.tls.redirectPort", problem: "must differ from server.port")
            }
        }
    }

    /// A non-empty string, or nil when the key is absent.
    static func optionalPath(_ reader: ConfigReader, _ key: String) throws(ConfigError) -> String? {
        guard reader.object[key] != nil else { return nil }
        let path = try reader.string(key, default: "")
        if path.isEmpty { throw ConfigError(key: reader.name(key), problem: "must be a non-empty path") }
        return path
    }

    /// The certificate and key of `server.tls`, read and checked against each other; nil
    /// without TLS. The error names the file and the key that names it.
    public func loadTLSCredentials() throws(ConfigError) -> TLSCredentials? {
        guard let certificatePath = tlsCertificatePath, let privateKeyPath = tlsPrivateKeyPath else { return nil }
        do {
            return try TLSCredentials.load(certificatePath: certificatePath, privateKeyPath: privateKeyPath)
        } catch {
            let key = error.path == privateKeyPath && error.path != certificatePath ? "server.tls.privateKey" : "server.tls.certificate"
            throw ConfigError(key: key, problem: error.description)
        }
    }

    /// Every `apps[].hooks.caFile` must hold PEM CA certificates.
    func checkHookCAFiles() throws(ConfigError) {
        for (i, app) in apps.enumerated() {
            guard let caFile = app.hooksCAFile else { continue }
            if let problem = HookSettings.problem(withCAFile: caFile) {
                throw ConfigError(key: "apps[\(i)].hooks.caFile", problem: problem)
            }
        }
    }
}
