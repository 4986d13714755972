/// One session's `speakers` set (docs/protocol.md): the names and the prefix it follows, its
/// own detector (a floor is decided among the set, so two sets may have two holders), and
/// what it was told last.
struct SpeakerFollower {
    let names: Set<String>
    let prefix: String?
    var detector = SpeakerDetector()
    /// The `activeSpeakers` list as last sent (names, loudest first), and when.
    var sentActive: [String] = []
    var activeSentAt: UInt64 = 0

    /// `activeSpeakers` goes out on a change, at most this often.
    static let activeIntervalMicros: UInt64 = 200_000

    func follows(_ stream: String) -> Bool {
        names.contains(stream) || prefix.map { stream.hasPrefix($0) } == true
    }
}
