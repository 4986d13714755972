import CWebsockets
import SluiceControl
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// The one lws protocol callback: finds the server through the context's user pointer.
func signalingServerCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                             _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<SignalingServer>.fromOpaque(raw).takeUnretainedValue()
    return server.handle(wsi, reason, user, input, length)
}

extension SignalingServer {
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            serviceWoke()
            return 0
        case LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS:
            // During lws_create_vhost of the TLS listener; `user` is its SSL_CTX.
            if let user, let tlsCertificate { tlsCertificate.attach(to: OpaquePointer(user)) }
            return 0

        // Plain HTTP
        case LWS_CALLBACK_HTTP:
            return httpRequestArrived(wsi)
        case LWS_CALLBACK_HTTP_BODY:
            if let exchange = exchanges[wsi], let input {
                exchange.appendBody(UnsafeRawBufferPointer(start: input, count: length))
            }
            return 0
        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let exchange = exchanges[wsi] else { return -1 }
            // Answered already when the request said `Content-Length: 0`.
            guard !exchange.answered, exchange.responder == nil else { return 0 }
            return respond(exchange)
        case LWS_CALLBACK_HTTP_WRITEABLE:
            return exchanges[wsi]?.writeNext() ?? 0
        case LWS_CALLBACK_CLOSED_HTTP:
            exchanges.removeValue(forKey: wsi)?.responder?.abandon()
            return 0

        // WebSocket
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // lws upgrades on any path; only /ws is the signaling endpoint, and not on the
            // plain-HTTP redirect port.
            return !shutdownBegun && !isRedirectPort(wsi) && requestPath(wsi) == "/ws" ? 0 : 1
        case LWS_CALLBACK_ESTABLISHED:
            let connection = WebSocketConnection(wsi: wsi, maxMessageBytes: config.maxMessageBytes)
            webSockets[wsi] = connection
            let session = sessions.open(output: connection)
            session.remoteAddress = Self.peerAddress(wsi)
            connection.session = session
            return 0
        case LWS_CALLBACK_RECEIVE:
            webSocketReceived(wsi, input, length)
            return 0
        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = webSockets[wsi] else { return 0 }
            return connection.writeNext() ? 0 : -1
        case LWS_CALLBACK_CLOSED:
            webSocketClosed(wsi)
            return 0
        case LWS_CALLBACK_WSI_DESTROY:
            webSocketClosed(wsi)
            exchanges.removeValue(forKey: wsi)?.responder?.abandon()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    // MARK: HTTP

    private static let methodNames = ["GET", "POST", "OPTIONS", "PUT", "PATCH", "DELETE", "CONNECT", "HEAD"]

    private static let headerTokens: [(String, lws_token_indexes)] = [
        ("host", WSI_TOKEN_HOST), ("origin", WSI_TOKEN_ORIGIN), ("authorization", WSI_TOKEN_HTTP_AUTHORIZATION),
        ("content-type", WSI_TOKEN_HTTP_CONTENT_TYPE), ("content-length", WSI_TOKEN_HTTP_CONTENT_LENGTH),
        ("accept", WSI_TOKEN_HTTP_ACCEPT), ("user-agent", WSI_TOKEN_HTTP_USER_AGENT),
        ("if-match", WSI_TOKEN_HTTP_IF_MATCH), ("if-none-match", WSI_TOKEN_HTTP_IF_NONE_MATCH),
        ("x-forwarded-for", WSI_TOKEN_X_FORWARDED_FOR), ("range", WSI_TOKEN_HTTP_RANGE),
    ]

    private func httpRequestArrived(_ wsi: OpaquePointer) -> Int32 {
        var uri: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let methodIndex = Int(lws_http_get_uri_and_method(wsi, &uri, &uriLength))
        let method = SignalingServer.methodNames.indices.contains(methodIndex) ? SignalingServer.methodNames[methodIndex] : "GET"
        var path = "/"
        if let uri, uriLength > 0 {
            path = uri.withMemoryRebound(to: UInt8.self, capacity: Int(uriLength)) {
                String(decoding: UnsafeBufferPointer(start: $0, count: Int(uriLength)), as: UTF8.self)
            }
        }
        var headers: [String: String] = [:]
        for (name, token) in SignalingServer.headerTokens {
            if let value = headerValue(wsi, token) { headers[name] = value }
        }
        let request = HTTPRequest(method: method, path: path, query: queryString(wsi), headers: headers)
        let exchange = HTTPExchange(wsi: wsi, request: request, maxBodyBytes: config.maxHTTPBodyBytes)
        exchanges[wsi] = exchange
        if isRedirectPort(wsi) {
            var redirect = HTTPSRedirect.response(for: request, httpsPort: port, fallbackHost: config.host)
            guard headers["content-length"].flatMap({ Int($0) }) ?? 0 > 0
                    || headerValue(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil else {
                return exchange.respond(redirect)
            }
            // A body is not read here: answer, then close rather than parse it as a request.
            redirect.headers.append(("connection", "close"))
            _ = exchange.respond(redirect)
            return -1
        }
        if headerValue(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil {
            // A chunked request body is not supported; ask for a length and drop the connection.
            _ = exchange.respond(.error(status: 411, message: "Length required", reason: "LENGTH_REQUIRED",
                                        headers: [("connection", "close")]))
            return -1
        }
        if let length = headers["content-length"].flatMap({ Int($0) }), length > 0 {
            return 0  // the body comes through HTTP_BODY, then HTTP_BODY_COMPLETION
        }
        return respond(exchange)
    }

    private func respond(_ exchange: HTTPExchange) -> Int32 {
        let request = exchange.request
        if exchange.bodyTooLarge {
            log.info("HTTP \(request.method) \(request.path): body over \(config.maxHTTPBodyBytes) bytes")
            return exchange.respond(.error(status: 413, message: "Request body too large", reason: "BODY_TOO_LARGE"))
        }
        let responder = HTTPResponder()
        exchange.responder = responder
        router.route(request, responder: responder)
        if let response = responder.immediate {
            log.debug("HTTP \(request.method) \(request.path) -> \(response.status)")
            return exchange.respond(response)
        }
        // Deferred: the exchange is looked up again when the answer comes, so a connection
        // closed meanwhile is never written to.
        responder.handlerReturned { [weak self, weak exchange] response in
            guard let self, let exchange, self.exchanges[exchange.wsi] === exchange else { return }
            self.log.debug("HTTP \(request.method) \(request.path) -> \(response.status) (deferred)")
            exchange.respondLater(response)
        }
        exchange.awaitDeferredResponse()
        return 0
    }

    private func headerValue(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = Int(lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token))
        guard copied >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { pointer in
            pointer.withMemoryRebound(to: UInt8.self) {
                String(decoding: UnsafeBufferPointer(rebasing: $0.prefix(copied)), as: UTF8.self)
            }
        }
    }

    /// lws splits the query into fragments at "&"; they are joined back.
    private func queryString(_ wsi: OpaquePointer) -> String {
        var parts: [String] = []
        var index: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            guard length > 0 else { break }
            var buffer = [CChar](repeating: 0, count: length + 1)
            let copied = Int(lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index))
            guard copied >= 0 else { break }
            parts.append(buffer.withUnsafeBufferPointer { pointer in
                pointer.withMemoryRebound(to: UInt8.self) {
                    String(decoding: UnsafeBufferPointer(rebasing: $0.prefix(copied)), as: UTF8.self)
                }
            })
            index += 1
        }
        return parts.joined(separator: "&")
    }

    private func isRedirectPort(_ wsi: OpaquePointer) -> Bool {
        redirectVhost != nil && lws_get_vhost(wsi) == redirectVhost
    }

    private func requestPath(_ wsi: OpaquePointer) -> String? {
        headerValue(wsi, WSI_TOKEN_GET_URI)
    }

    /// The connection's peer address without a reverse lookup; nil when lws cannot tell.
    static func peerAddress(_ wsi: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &name, name.count) != nil else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }

    // MARK: WebSocket

    private func webSocketReceived(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        guard let connection = webSockets[wsi], let session = connection.session else { return }
        let chunk = UnsafeRawBufferPointer(start: length > 0 ? input : nil, count: length > 0 ? length : 0)
        let isFinal = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
        let isBinary = lws_frame_is_binary(wsi) != 0
        connection.receive(chunk, isFinal: isFinal, isBinary: isBinary) { message in
            switch message {
            case .text(let bytes):
                sessions.receive(bytes, from: session)
            case .binary:
                sessions.receiveBinary(from: session)
            case .oversized(let count):
                sessions.receiveOversized(byteCount: count, from: session)
            }
        }
    }

    private func webSocketClosed(_ wsi: OpaquePointer) {
        guard let connection = webSockets.removeValue(forKey: wsi) else { return }
        if connection.droppedAsSlow {
            log.warn("connection \(connection.session?.connectionID ?? 0): dropped, over \(WebSocketConnection.maxQueuedBytes) bytes unread",
                     connection.session?.logFields ?? [])
        }
        if let session = connection.session {
            connection.session = nil
            sessions.closed(session)
        }
    }
}
