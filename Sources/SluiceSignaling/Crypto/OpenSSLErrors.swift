import COpenSSL

/// The thread's OpenSSL error queue, for messages that say why a certificate, key or TLS
/// connection failed.
enum OpenSSLErrors {
    /// Pops every queued error into one line.
    static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(cString: buffer))
        }
        return messages.joined(separator: "; ")
    }
}
