import CWebsockets
import Glibc

/// C memory libwebsockets reads for the life of the context: the protocol table, its
/// name, the interface string, the keepalive policy, the vhost names and the ALPN list.
/// Freed after lws_context_destroy.
final class LWSResources {
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private let interface: UnsafeMutablePointer<CChar>
    private let keepalive: UnsafeMutablePointer<lws_retry_bo_t>?
    private let port: Int32
    private let vhostName = strdup("sluice")
    private let redirectVhostName = strdup("sluice-https-redirect")
    /// HTTP/1.1 only over TLS: lws would offer h2 by ALPN, and the WebSocket and HTTP code here
    /// is written for HTTP/1.1 (one request per connection at a time, RFC 6455 upgrades).
    private let alpn = strdup("http/1.1")
    private var released = false

    /// The receive buffer lws hands to one RECEIVE callback; larger messages come in pieces.
    static let rxBufferSize = 65_536

    init(config: SignalingConfig) {
        protocolName = strdup("sluice")
        interface = strdup(config.host)
        port = Int32(clamping: config.port)
        protocols = .allocate(capacity: 2)
        var first = lws_protocols()
        first.name = UnsafePointer(protocolName)
        first.callback = signalingServerCallback
        first.per_session_data_size = 0
        first.rx_buffer_size = LWSResources.rxBufferSize
        protocols.initialize(to: first)
        (protocols + 1).initialize(to: lws_protocols())
        if config.pingIntervalSeconds > 0 {
            let interval = UInt16(clamping: config.pingIntervalSeconds)
            var policy = lws_retry_bo_t()
            policy.secs_since_valid_ping = interval
            policy.secs_since_valid_hangup = interval &* 2 > interval ? interval &* 2 : UInt16.max
            keepalive = .allocate(capacity: 1)
            keepalive?.initialize(to: policy)
        } else {
            keepalive = nil
        }
    }

    /// The vhost's part of the creation info.
    func fill(_ info: inout lws_context_creation_info) {
        info.port = port
        info.iface = UnsafePointer(interface)
        info.protocols = UnsafePointer(protocols)
        info.retry_and_idle_policy = keepalive.map { UnsafePointer($0) }
        info.max_http_header_data = 8192
        info.vhost_name = UnsafePointer(vhostName)
    }

    /// The TLS part of the vhost's creation info: lws makes the SSL_CTX without a certificate,
    /// which `TLSServerCertificate` installs per connection (see there for why).
    func fillTLS(_ info: inout lws_context_creation_info) {
        info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) | UInt64(LWS_SERVER_OPTION_CREATE_VHOST_SSL_CTX)
        info.alpn = UnsafePointer(alpn)
    }

    /// The plain-HTTP redirect vhost: the same interface and protocol, another port.
    func fillRedirect(_ info: inout lws_context_creation_info, port: Int) {
        info.port = Int32(clamping: port)
        info.iface = UnsafePointer(interface)
        info.protocols = UnsafePointer(protocols)
        info.max_http_header_data = 8192
        info.vhost_name = UnsafePointer(redirectVhostName)
    }

    func release() {
        guard !released else { return }
        released = true
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        free(protocolName)
        free(interface)
        free(vhostName)
        free(redirectVhostName)
        free(alpn)
        keepalive?.deinitialize(count: 1)
        keepalive?.deallocate()
    }
}
