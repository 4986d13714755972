extension SessionDescription {
    /// The SDP text, CRLF line endings, in the order RFC 8866 and Chromium expect.
    /// Everything `init(parsing:)` keeps is written, so parsing the result gives back an equal value.
    public func serialized() -> String {
        var w = SDPWriter()
        w.line("v=0")
        let o = origin
        w.line("o=\(o.username) \(o.sessionID) \(o.sessionVersion) \(o.networkType) \(o.addressType) \(o.address)")
        w.line("s=\(sessionName)")
        if let connection { w.connection(connection) }
        for b in bandwidths { w.line("b=\(b.type):\(b.value)") }
        w.line("t=0 0")
        for group in groups { w.line((["a=group:\(group.semantics)"] + group.mids).joined(separator: " ")) }
        if extmapAllowMixed { w.line("a=extmap-allow-mixed") }
        if let msidSemantic {
            w.line((["a=msid-semantic: \(msidSemantic.semantics)"] + msidSemantic.identifiers).joined(separator: " "))
        }
        if iceLite { w.line("a=ice-lite") }
        w.transport(ufrag: iceUfrag, pwd: icePwd, options: iceOptions, fingerprints: fingerprints, setup: setup)
        if let direction { w.line("a=\(direction.rawValue)") }
        for e in extensionMaps { w.extensionMap(e) }
        for a in otherAttributes { w.attribute(a) }
        for m in media { w.media(m) }
        return w.text
    }
}

struct SDPWriter {
    private(set) var text = ""

    mutating func line(_ s: String) {
        text += s
        text += "\r\n"
    }

    mutating func connection(_ c: ConnectionData) {
        line("c=\(c.networkType) \(c.addressType) \(c.address)")
    }

    mutating func transport(ufrag: String?, pwd: String?, options: [String], fingerprints: [Fingerprint], setup: DTLSSetup?) {
        if let ufrag { line("a=ice-ufrag:\(ufrag)") }
        if let pwd { line("a=ice-pwd:\(pwd)") }
        if !options.isEmpty { line("a=ice-options:" + options.joined(separator: " ")) }
        for f in fingerprints { line("a=fingerprint:\(f.algorithm) \(f.value)") }
        if let setup { line("a=setup:\(setup.rawValue)") }
    }

    mutating func extensionMap(_ e: ExtensionMap) {
        var s = "a=extmap:\(e.id)"
        if let d = e.direction { s += "/\(d.rawValue)" }
        s += " \(e.uri)"
        if let a = e.attributes { s += " \(a)" }
        line(s)
    }

    mutating func attribute(_ a: SDPAttribute) {
        line(a.value.map { "a=\(a.name):\($0)" } ?? "a=\(a.name)")
    }

    mutating func media(_ m: MediaDescription) {
        let port = m.portCount.map { "\(m.port)/\($0)" } ?? "\(m.port)"
        line((["m=\(m.kind.name) \(port) \(m.proto)"] + m.formats).joined(separator: " "))
        if let c = m.connection { connection(c) }
        for b in m.bandwidths { line("b=\(b.type):\(b.value)") }
        if let rtcp = m.rtcp { line("a=rtcp:\(rtcp)") }
        transport(ufrag: m.iceUfrag, pwd: m.icePwd, options: m.iceOptions, fingerprints: m.fingerprints, setup: m.setup)
        if let mid = m.mid { line("a=mid:\(mid)") }
        if m.bundleOnly { line("a=bundle-only") }
        for e in m.extensionMaps { extensionMap(e) }
        if let d = m.direction { line("a=\(d.rawValue)") }
        for msid in m.msids { line("a=msid:\(msid.streamID)" + (msid.trackID.map { " \($0)" } ?? "")) }
        if m.rtcpMux { line("a=rtcp-mux") }
        if m.rtcpRsize { line("a=rtcp-rsize") }
        for codec in m.codecs { self.codec(codec) }
        for rid in m.rids {
            var s = "a=rid:\(rid.id) \(rid.direction.rawValue)"
            if !rid.restrictions.isEmpty { s += " " + rid.restrictions.formatted }
            line(s)
        }
        if let sim = m.simulcast, !(sim.send.isEmpty && sim.recv.isEmpty) {
            var parts: [String] = []
            if !sim.send.isEmpty { parts += ["send", Self.simulcastList(sim.send)] }
            if !sim.recv.isEmpty { parts += ["recv", Self.simulcastList(sim.recv)] }
            line("a=simulcast:" + parts.joined(separator: " "))
        }
        if let port = m.sctpPort { line("a=sctp-port:\(port)") }
        if let size = m.maxMessageSize { line("a=max-message-size:\(size)") }
        for g in m.ssrcGroups { line((["a=ssrc-group:\(g.semantics)"] + g.ssrcs.map(String.init)).joined(separator: " ")) }
        for s in m.ssrcs {
            if s.attributes.isEmpty { line("a=ssrc:\(s.ssrc)") }
            for a in s.attributes { line("a=ssrc:\(s.ssrc) " + (a.value.map { "\(a.name):\($0)" } ?? a.name)) }
        }
        for c in m.candidates { line("a=candidate:\(c)") }
        if m.endOfCandidates { line("a=end-of-candidates") }
        for a in m.otherAttributes { attribute(a) }
    }

    mutating func codec(_ c: CodecDescription) {
        line("a=rtpmap:\(c.payloadType) \(c.name)/\(c.clockRate)" + (c.channels.map { "/\($0)" } ?? ""))
        for fb in c.feedback { line("a=rtcp-fb:\(c.payloadType) \(fb.type)" + (fb.parameter.map { " \($0)" } ?? "")) }
        if !c.parameters.isEmpty { line("a=fmtp:\(c.payloadType) \(c.parameters.formatted)") }
    }

    static func simulcastList(_ streams: [[SimulcastRID]]) -> String {
        streams.map { alts in alts.map { ($0.paused ? "~" : "") + $0.id }.joined(separator: ",") }.joined(separator: ";")
    }
}
