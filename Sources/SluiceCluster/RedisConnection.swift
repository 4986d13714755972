import CHiredis
#if canImport(Glibc)
import Glibc
#endif

/// One blocking connection to Redis: owns a hiredis `redisContext` and frees it. Every command
/// waits at most `commandTimeoutMs`; a broken link closes the context, and the next command
/// connects again, so a caller never holds a dead context. Used from one thread at a time.
public final class RedisConnection {
    public let url: RedisURL
    public let connectTimeoutMs: Int
    public let commandTimeoutMs: Int
    private var context: UnsafeMutablePointer<redisContext>?

    /// hiredis writes with write(2), which raises SIGPIPE when Redis has closed the socket;
    /// Linux has no per-socket switch for it, so the process ignores SIGPIPE (the sluice
    /// executable does already) and the write fails with EPIPE instead.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Makes no connection yet: the first command (or `connect()`) does.
    public init(url: RedisURL, connectTimeoutMs: Int = 500, commandTimeoutMs: Int = 500) {
        self.url = url
        self.connectTimeoutMs = max(1, connectTimeoutMs)
        self.commandTimeoutMs = max(1, commandTimeoutMs)
    }

    deinit { close() }

    public var isConnected: Bool { context != nil }

    /// Connects (closing any old context first), sets the command timeout and selects the database.
    public func connect() throws(RedisError) {
        Self.ignoreSIGPIPE
        close()
        guard let made = redisConnectWithTimeout(url.host, Int32(url.port), Self.timeval(ms: connectTimeoutMs)) else {
            throw .connection("cannot allocate a hiredis context")
        }
        if made.pointee.err != 0 {
            let why = Self.errorText(made)
            redisFree(made)
            throw .connection("connect to \(url.host):\(url.port): \(why)")
        }
        if redisSetTimeout(made, Self.timeval(ms: commandTimeoutMs)) != REDIS_OK {
            let why = Self.errorText(made)
            redisFree(made)
            throw .connection("set the command timeout: \(why)")
        }
        context = made
        if let password = url.password {
            // On every (re)connect: a Redis that restarted knows no earlier AUTH.
            let reply = try command(url.user.map { ["AUTH", $0, password] } ?? ["AUTH", password])
            guard reply == .status("OK") else {
                close()
                throw .authentication(Self.authProblem(reply))
            }
        }
        if url.database != 0 {
            let reply = try command(["SELECT", String(url.database)])
            guard reply == .status("OK") else {
                close()
                throw .connection("SELECT \(url.database) answered \(reply.kindDescription)")
            }
        }
    }

    /// Closes the link and connects again.
    public func reconnect() throws(RedisError) {
        close()
        try connect()
    }

    public func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command, text arguments (each sent as its UTF-8 bytes).
    @discardableResult
    public func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(bytes: arguments.map { Array($0.utf8) })
    }

    /// Sends one command with binary-safe arguments (lengths given, so NUL bytes pass) and
    /// returns the reply; an error reply comes back as `.error`, not thrown.
    @discardableResult
    public func command(bytes arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        guard !arguments.isEmpty else { throw .unexpected("an empty command") }
        guard arguments.count <= Int(Int32.max) else { throw .unexpected("too many arguments") }
        if context == nil { try connect() }
        guard let context else { throw .connection("not connected") }
        // One flat buffer holds every argument, so each pointer stays valid for the call;
        // the trailing byte keeps the buffer non-empty when every argument is.
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(1) { $0 + $1.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(flat.count)
            lengths.append(argument.count)
            flat.append(contentsOf: argument)
        }
        flat.append(0)
        let raw: UnsafeMutableRawPointer? = flat.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                let base = chars.baseAddress!
                var argv: [UnsafePointer<CChar>?] = offsets.map { UnsafePointer(base + $0) }
                return argv.withUnsafeMutableBufferPointer { argvBuffer in
                    lengths.withUnsafeBufferPointer { lengthBuffer in
                        redisCommandArgv(context, Int32(arguments.count), argvBuffer.baseAddress, lengthBuffer.baseAddress)
                    }
                }
            }
        }
        guard let raw else {
            // hiredis leaves the context unusable after an I/O or protocol error.
            let why = Self.errorText(context)
            close()
            throw .connection(why)
        }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        if context.pointee.err != 0 {
            let why = Self.errorText(context)
            close()
            throw .connection(why)
        }
        return try Self.copy(reply)
    }

    /// The reply as a Swift value; hiredis's reader already bounds how deep arrays nest.
    private static func copy(_ reply: UnsafeMutablePointer<redisReply>) throws(RedisError) -> RedisReply {
        let r = reply.pointee
        func bytes() -> [UInt8] {
            guard let str = r.str, r.len > 0 else { return [] }
            return Array(UnsafeRawBufferPointer(start: str, count: Int(r.len)))
        }
        switch r.type {
        case REDIS_REPLY_STRING: return .string(bytes())
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(r.integer))
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_ARRAY:
            var values: [RedisReply] = []
            values.reserveCapacity(Int(r.elements))
            for i in 0..<Int(r.elements) {
                guard let element = r.element?[i] else { values.append(.null); continue }
                values.append(try copy(element))
            }
            return .array(values)
        default:
            throw .unexpected("a reply of hiredis type \(r.type)")
        }
    }

    /// Connects, authenticates and pings once: nil when Redis answered, the error otherwise.
    /// `.authentication` means the config's credentials will never do (a wrong password, or
    /// none for a Redis that wants one); anything else may pass (Redis not up yet).
    public static func probe(_ url: RedisURL, timeoutMs: Int = 1000) -> RedisError? {
        let connection = RedisConnection(url: url, connectTimeoutMs: timeoutMs, commandTimeoutMs: timeoutMs)
        defer { connection.close() }
        do throws(RedisError) {
            let reply = try connection.command(["PING"])
            if case .error(let message) = reply {
                return message.hasPrefix("NOAUTH") || message.hasPrefix("WRONGPASS") ? .authentication(message) : .reply(message)
            }
            return nil
        } catch {
            return error
        }
    }

    /// Redis's words for a refused AUTH (they never hold the password), or the reply's kind.
    static func authProblem(_ reply: RedisReply) -> String {
        if case .error(let message) = reply { return message }
        return "AUTH answered \(reply.kindDescription)"
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        let text = withUnsafeBytes(of: context.pointee.errstr) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.isEmpty ? "hiredis error \(context.pointee.err)" : text
    }

    private static func timeval(ms: Int) -> Glibc.timeval {
        Glibc.timeval(tv_sec: ms / 1000, tv_usec: (ms % 1000) * 1000)
    }
}
