/// Which signaling URL each client of a run uses. Publishers use the first URL (in a cluster,
/// the origin). Players are numbered round robin over the publishers (player `i` plays
/// publisher `i % publishers`), so the URL goes by a player's rank among its own publisher's
/// players: every stream's audience is spread over every URL, whatever the counts.
public enum PlayerPlacement {
    public static let publisherURLIndex = 0

    /// The index into `urls` for player `index`, with `publishers` streams and `urls` URLs.
    public static func urlIndex(player index: Int, publishers: Int, urls: Int) -> Int {
        guard urls > 1 else { return 0 }
        return (index / max(1, publishers)) % urls
    }
}
