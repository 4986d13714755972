import Glibc
import SluiceServer

/// sluice [--config FILE] [--check-config] [--insecure-dev] [--version]
/// sluice token create --app KEY ... (TokenCommand.usage)
/// Exit codes: 0 after a clean shutdown, 2 for bad flags or an invalid config (which includes
/// the placeholder admin token on a server others can reach, unless --insecure-dev: see
/// StartupCheck), 1 when the server cannot start (a port in use, for example).

let usageLine = "usage: sluice [--config FILE] [--check-config] [--insecure-dev] [--version]\n       sluice token create --app KEY ... (sluice token create --help)"

func usage() -> Never {
    fputs(usageLine + "\n", stderr)
    exit(2)
}

// `sluice token create ...` mints an access token and exits.
if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "token" {
    do {
        let command = try TokenCommand(arguments: Array(CommandLine.arguments.dropFirst(2)))
        let config = try ServerConfig.load(path: command.configPath)
        print(try command.token(config: config))
        exit(0)
    } catch let error as TokenCommand.UsageError {
        fputs("sluice token: \(error)\n\(TokenCommand.usage)\n", stderr)
        exit(2)
    } catch {
        fputs("sluice token: \(error)\n", stderr)
        exit(2)
    }
}

var configPath = "conf/sluice.json"
var checkOnly = false
var insecureDev = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--config", "-c":
        guard let path = arguments.popFirst() else { usage() }
        configPath = path
    case "--check-config":
        checkOnly = true
    case "--insecure-dev":
        insecureDev = true
    case "--version", "-v":
        print("sluice \(SluiceVersion.string)")
        exit(0)
    case "--help", "-h":
        print(usageLine)
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
if let refusal = StartupCheck.refusal(config, insecureDev: insecureDev) {
    fputs("sluice: \(refusal)\n", stderr)
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

// Before any socket is opened, so that every part of the server sees the raised limit.
let fileLimit = OpenFileLimit.raise()

let server: Server
do {
    server = try Server(config: config)
    try server.start()
} catch {
    fputs("sluice: cannot start: \(error)\n", stderr)
    exit(1)
}
let fileLimitReport = OpenFileLimit.report(fileLimit, needed: OpenFileLimit.needed(config))
if fileLimitReport.isWarning { server.log.warn(fileLimitReport.message) } else { server.log.info(fileLimitReport.message) }
if let warning = StartupCheck.warning(config, insecureDev: insecureDev) { server.log.warn(warning) }

// SIGTERM drains (Server+Drain.swift): the loop then waits for the last session or the
// deadline, polling four times a second; a second SIGTERM, or SIGINT, stops at once. A drain
// begun by `POST /api/v1/drain` ends the same way.
var pollInterval = timespec(tv_sec: 0, tv_nsec: 250_000_000)
var stopReason = ""
while stopReason.isEmpty {
    let received = sigtimedwait(&signals, nil, &pollInterval)
    switch received {
    case SIGHUP:
        // A certificate renewal: load and check here, then the signaling thread swaps it in.
        server.log.info("SIGHUP: reloading the TLS certificate")
        server.reloadTLSCertificate()
    case SIGTERM where server.signaling.isDraining:
        stopReason = "a second SIGTERM: stopping at once"
    case SIGTERM where config.drainSeconds == 0:
        stopReason = "SIGTERM: shutting down (server.drainSeconds is 0: no drain)"
    case SIGTERM:
        server.log.info("SIGTERM: draining for up to \(config.drainSeconds) s (a second SIGTERM stops at once)")
        server.drain()
    case SIGINT:
        stopReason = "SIGINT: shutting down"
    default:
        if server.isDrained { stopReason = "drained: shutting down" }
    }
}
server.log.info(stopReason)
server.shutdown()
exit(0)
