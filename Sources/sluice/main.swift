import Glibc
import SluiceServer

/// sluice [--config FILE] [--check-config] [--version]
/// Exit codes: 0 after a clean shutdown, 2 for bad flags or an invalid config, 1 when the
/// server cannot start (a port in use, for example).

func usage() -> Never {
    fputs("usage: sluice [--config FILE] [--check-config] [--version]\n", stderr)
    exit(2)
}

var configPath = "conf/sluice.json"
var checkOnly = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--config", "-c":
        guard let path = arguments.popFirst() else { usage() }
        configPath = path
    case "--check-config":
        checkOnly = true
    case "--version", "-v":
        print("sluice \(SluiceVersion.string)")
        exit(0)
    case "--help", "-h":
        print("usage: sluice [--config FILE] [--check-config] [--version]")
        exit(0)
    default:
        fputs("sluice: unknown argument '\(argument)'\n", stderr)
        usage()
    }
}

let config: ServerConfig
do {
    config = try ServerConfig.load(path: configPath)
} catch {
    fputs("sluice: \(error)\n", stderr)
    exit(2)
}
if checkOnly {
    print("sluice: \(configPath) is valid")
    exit(0)
}

// Signals are taken synchronously with sigwait on this thread, so the shutdown and the TLS
// reload run as ordinary code and not inside a signal handler.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
sigaddset(&signals, SIGHUP)
pthread_sigmask(SIG_BLOCK, &signals, nil)
signal(SIGPIPE, SIG_IGN)

let server: Server
do {
    server = try Server(config: config)
    try server.start()
} catch {
    fputs("sluice: cannot start: \(error)\n", stderr)
    exit(1)
}

var received: Int32 = 0
while true {
    sigwait(&signals, &received)
    guard received == SIGHUP else { break }
    // A certificate renewal: load and check here, then the signaling thread swaps it in.
    server.log.info("SIGHUP: reloading the TLS certificate")
    server.reloadTLSCertificate()
}
server.log.info("signal \(received): shutting down")
server.shutdown()
exit(0)
