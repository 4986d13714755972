import CWebsockets

/// One HTTP request on a connection: the collected body, then the response body written
/// out in chunks. Service thread only.
final class HTTPExchange {
    static let chunkSize = 16_384

    let wsi: OpaquePointer
    var request: HTTPRequest
    private let maxBodyBytes: Int
    /// The body went over the limit; the rest is read and dropped, then 413 answers.
    private(set) var bodyTooLarge = false
    private var responseBody: [UInt8] = []
    private var responseOffset = 0
    private var scratch: [UInt8] = []
    /// The request's responder, once the route has it.
    var responder: HTTPResponder?
    /// Headers went out (or were queued): lws also ends a body of `Content-Length: 0` with a
    /// body-completion callback after the request's own, which must not answer again.
    private(set) var answered = false
    /// A deferred answer waiting for the writeable callback: lws takes headers only there
    /// (or in the callback that received the request).
    private var pendingResponse: HTTPResponse?

    /// How long a deferred answer may take before the connection is dropped: longer than any
    /// sensible hook timeout, so only a bug gets here.
    static let deferredTimeoutSeconds: Int32 = 60

    init(wsi: OpaquePointer, request: HTTPRequest, maxBodyBytes: Int) {
        self.wsi = wsi
        self.request = request
        self.maxBodyBytes = maxBodyBytes
    }

    func appendBody(_ chunk: UnsafeRawBufferPointer) {
        guard !bodyTooLarge else { return }
        if request.body.count + chunk.count > maxBodyBytes {
            bodyTooLarge = true
            request.body = []
        } else {
            request.body.append(contentsOf: chunk)
        }
    }

    /// Writes the status line and headers now, and queues the body. Returns the callback's
    /// return value: nonzero closes the connection.
    func respond(_ response: HTTPResponse) -> Int32 {
        answered = true
        let extraLength = response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 }
        var headerBuffer = [UInt8](repeating: 0, count: LWSPre.size + 1024 + extraLength)
        let isHead = request.method == "HEAD"
        let failed: Bool = headerBuffer.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            let start = base + LWSPre.size
            let end = base + buffer.count - 1
            var cursor: UnsafeMutablePointer<UInt8>? = start
            let contentType = response.contentType ?? (response.body.isEmpty ? nil : "application/octet-stream")
            let addedCommon: Int32 = withOptionalCString(contentType) { type in
                lws_add_http_common_headers(wsi, UInt32(response.status), type, lws_filepos_t(response.body.count),
                                            &cursor, end)
            }
            if addedCommon != 0 { return true }
            for (name, value) in response.headers {
                let fullName = name.lowercased().hasSuffix(":") ? name.lowercased() : name.lowercased() + ":"
                var valueBytes = Array(value.utf8)
                let added = fullName.withCString { namePointer in
                    valueBytes.withUnsafeMutableBufferPointer { valuePointer in
                        lws_add_http_header_by_name(wsi, UnsafeRawPointer(namePointer).assumingMemoryBound(to: UInt8.self),
                                                    valuePointer.baseAddress, Int32(valuePointer.count), &cursor, end)
                    }
                }
                if added != 0 { return true }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) != 0
        }
        if failed { return -1 }
        if response.body.isEmpty || isHead {
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        responseBody = response.body
        responseOffset = 0
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The route will answer later: the connection waits, at most `deferredTimeoutSeconds`.
    func awaitDeferredResponse() {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, HTTPExchange.deferredTimeoutSeconds)
    }

    /// A deferred answer: written from the next writeable callback.
    func respondLater(_ response: HTTPResponse) {
        pendingResponse = response
        lws_callback_on_writable(wsi)
    }

    /// One chunk of the response body per writeable callback (the headers first, for a
    /// deferred answer).
    func writeNext() -> Int32 {
        if let response = pendingResponse {
            pendingResponse = nil
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            return respond(response)
        }
        guard responseOffset < responseBody.count else { return 0 }
        let length = min(HTTPExchange.chunkSize, responseBody.count - responseOffset)
        let isLast = responseOffset + length == responseBody.count
        if scratch.count < LWSPre.size + length {
            scratch = [UInt8](repeating: 0, count: LWSPre.size + HTTPExchange.chunkSize)
        }
        let written: Int32 = scratch.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            responseBody.withUnsafeBufferPointer { body in
                guard let source = body.baseAddress else { return }
                (base + LWSPre.size).update(from: source + responseOffset, count: length)
            }
            return lws_write(wsi, base + LWSPre.size, length, isLast ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        guard written >= 0 else { return -1 }
        responseOffset += length
        if isLast {
            responseBody = []
            responseOffset = 0
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
        }
        lws_callback_on_writable(wsi)
        return 0
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
