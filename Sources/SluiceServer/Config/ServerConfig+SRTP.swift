import SluiceTransport

extension ServerConfig {
    /// `rtc.srtp`: `"openssl"` (Sluice's own SRTP over OpenSSL, the default) or `"libsrtp"`
    /// (Debian's libsrtp2). `rtc.srtpProfiles`: the DTLS-SRTP profiles offered, in order of
    /// preference, by their crypto-suite names; one name forces that profile.
    static func readSRTP(_ rtc: ConfigReader, into config: inout ServerConfig) throws(ConfigError) {
        let backend = try rtc.string("srtp", default: config.srtp.backend.rawValue,
                                     allowed: Set(SRTPBackend.allCases.map(\.rawValue)))
        config.srtp.backend = SRTPBackend(rawValue: backend) ?? .openSSL
        let names = try rtc.strings("srtpProfiles", default: config.srtp.profiles.map(\.name))
        if names.isEmpty {
            throw ConfigError(key: "rtc.srtpProfiles", problem: "must list at least one profile")
        }
        var profiles: [SRTPProfile] = []
        for (i, name) in names.enumerated() {
            guard let profile = SRTPProfile(name: name) else {
                let known = SRTPProfile.allCases.map(\.name).sorted().joined(separator: ", ")
                throw ConfigError(key: "rtc.srtpProfiles[\(i)]", problem: "must be one of \(known), not \"\(name)\"")
            }
            if profiles.contains(profile) {
                throw ConfigError(key: "rtc.srtpProfiles[\(i)]", problem: "repeats \(name)")
            }
            profiles.append(profile)
        }
        config.srtp.profiles = profiles
    }
}
