import Foundation

/// The process's open-file limit (RLIMIT_NOFILE). systemd and most shells start a service with
/// a soft limit of 1,024, which would stop Sluice at about 500 sessions; the hard limit is
/// usually far higher (524,288 under systemd), and any process may raise its soft limit up to it.
public enum OpenFileLimit {
    public struct Outcome: Sendable, Equatable {
        /// The soft limit found at start.
        public var before: UInt64
        /// The soft limit now.
        public var soft: UInt64
        public var hard: UInt64
        /// Why the soft limit could not be raised, if it could not.
        public var failure: String?
    }

    /// Raises the soft limit to the hard limit. An unlimited hard limit is not a value the
    /// kernel takes for the soft one, so the soft limit then goes to fs.nr_open.
    public static func raise() -> Outcome {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else {
            return Outcome(before: 0, soft: 0, hard: 0, failure: "getrlimit: \(String(cString: strerror(errno)))")
        }
        let before = UInt64(limit.rlim_cur)
        var target = limit.rlim_max
        // RLIM_INFINITY (Swift imports the macro as -1, so compare with the maximum).
        if target == rlim_t.max { target = rlim_t(systemOpenFileCeiling() ?? UInt64(limit.rlim_cur)) }
        guard target > limit.rlim_cur else {
            return Outcome(before: before, soft: before, hard: UInt64(limit.rlim_max), failure: nil)
        }
        var raised = limit
        raised.rlim_cur = target
        guard setrlimit(resourceNoFile, &raised) == 0 else {
            return Outcome(before: before, soft: before, hard: UInt64(limit.rlim_max),
                           failure: "setrlimit: \(String(cString: strerror(errno)))")
        }
        return Outcome(before: before, soft: UInt64(target), hard: UInt64(limit.rlim_max), failure: nil)
    }

    /// Descriptors the config may need at its limits, an estimate:
    /// - each of `limits.maxSessions` sessions holds its WebSocket (a WHIP/WHEP resource holds
    ///   none once answered) and, while an authorizing hook is out, one connection to the
    ///   backend (a session waits for at most one hook at a time): 2 per session;
    /// - each media worker holds its UDP socket, its epoll descriptor, its inbox eventfd and
    ///   room for a TCP listener: 4 per worker;
    /// - 64 for the rest: stdio, the HTTP listener, libwebsockets' own pipes, each app's
    ///   notification-hook connection, files being served, and the libraries' descriptors.
    public static func needed(_ config: ServerConfig) -> Int {
        config.maxSessions * 2 + config.workerCount * 4 + 64
    }

    /// The line to log at start, and whether it is a warning.
    public static func report(_ outcome: Outcome, needed: Int) -> (isWarning: Bool, message: String) {
        if let failure = outcome.failure {
            return (true, "open-file limit: could not raise the soft limit \(outcome.before) to the hard limit "
                          + "\(outcome.hard) (\(failure))" + shortfall(outcome.soft, needed: needed))
        }
        let change = outcome.soft == outcome.before
            ? "\(outcome.soft) (hard limit \(outcome.hard))"
            : "raised from \(outcome.before) to \(outcome.soft) (the hard limit)"
        guard outcome.soft < UInt64(needed) else {
            return (false, "open-file limit \(change); the config needs about \(needed)")
        }
        return (true, "open-file limit \(change)" + shortfall(outcome.soft, needed: needed))
    }

    private static func shortfall(_ soft: UInt64, needed: Int) -> String {
        guard soft < UInt64(needed) else { return "" }
        return "; below the roughly \(needed) descriptors that limits.maxSessions and the media workers need: connections "
            + "beyond it will be refused. Raise the hard limit (systemd: LimitNOFILE=; a shell: ulimit -Hn) "
            + "or lower limits.maxSessions"
    }

    private static func systemOpenFileCeiling() -> UInt64? {
        (try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8))
            .flatMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    #if canImport(Glibc)
    private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
