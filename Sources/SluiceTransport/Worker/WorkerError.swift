/// Why the worker could not open or bind a socket.
public enum WorkerError: Error, CustomStringConvertible {
    case socket(String)

    public var description: String {
        switch self {
        case .socket(let message): return message
        }
    }
}
