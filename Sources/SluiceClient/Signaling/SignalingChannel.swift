import Foundation

/// What a signaling channel reports, in the order it happened.
public enum SignalingChannelEvent: Sendable {
    /// One text frame (one JSON-RPC message).
    case text(String)
    /// The connection ended; nothing follows. `code` is the peer's close code, when it sent one.
    case closed(code: UInt16?, reason: String)
}

/// A WebSocket carrying text frames to and from the server. `SluiceSession` speaks JSON-RPC
/// over it and knows nothing of how frames travel, so the protocol layer stays the same on
/// every platform.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol SignalingChannel: AnyObject, Sendable {
    /// Connects. Afterwards `handler` gets every event, one at a time and in order, from
    /// whatever thread the channel reads on; `.closed` comes exactly once, last.
    func open(handler: @escaping @Sendable (SignalingChannelEvent) -> Void) async throws
    func send(text: String) async throws
    /// Starts the closing handshake (or drops the connection); `.closed` follows.
    func close(code: UInt16, reason: String)
}

@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public enum SignalingChannels {
    /// The channel this platform supports: URLSessionWebSocketTask on Apple platforms, and on
    /// Linux a WebSocket client over POSIX sockets (FoundationNetworking's
    /// URLSessionWebSocketTask needs a libcurl built with WebSocket support, which Debian's is not).
    public static func makeDefault(url: URL) -> SignalingChannel {
        #if os(Linux)
        return POSIXWebSocketChannel(url: url)
        #else
        return URLSessionSignalingChannel(url: url)
        #endif
    }
}
