/// Why a run could not go ahead (not a measured problem: those go into the result).
public enum LoadTestError: Error, CustomStringConvertible, Equatable {
    case setup(String)
    case server(String)
    case output(String)

    public var description: String {
        switch self {
        case .setup(let message): return message
        case .server(let message): return "server: \(message)"
        case .output(let message): return "output: \(message)"
        }
    }
}
