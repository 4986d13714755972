/// ICE priorities of the server's host candidates (RFC 8445 section 5.1.2.1):
/// `2^24 * type preference + 2^8 * local preference + (256 - component)`, component 1.
///
/// UDP host candidates take type preference 126 and local preference 65535 falling with the
/// address's order. A passive TCP host candidate (RFC 6544 section 4.2) takes type preference
/// 90, below every UDP host candidate, so a client that can use UDP does, and TCP is the
/// fallback; its local preference is `2^13 * direction-pref + other-pref` with the
/// direction-pref RFC 6544 recommends for passive host candidates (4) and other-pref 8191
/// falling with the address's order.
public enum CandidatePriority {
    public static let udpHostTypePreference = 126
    public static let tcpHostTypePreference = 90
    public static let passiveDirectionPreference = 4

    /// `index`: the address's position among the candidates of the same transport.
    public static func udpHost(index: Int) -> Int {
        priority(type: udpHostTypePreference, local: max(0, 65535 - index))
    }

    public static func tcpPassiveHost(index: Int) -> Int {
        priority(type: tcpHostTypePreference, local: passiveDirectionPreference << 13 + max(0, 8191 - index))
    }

    static func priority(type: Int, local: Int) -> Int {
        type << 24 + local << 8 + (256 - 1)
    }
}
