import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hook POSTs through one long-lived URLSession (libcurl on Linux). The deadline is
/// enforced here as well, so a backend that accepts and never answers costs one
/// request's `timeoutMs` and nothing more.
public final class URLSessionHookTransport: HookTransport, @unchecked Sendable {
    private let session: URLSession
    private let deadlines = DispatchQueue(label: "sluice.hooks.deadlines")

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.connectionProxyDictionary = [:]
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func post(_ request: HookRequest, completion: @escaping @Sendable (HookOutcome) -> Void) {
        guard let url = URL(string: request.url) else {
            completion(.failed("invalid URL \(request.url)"))
            return
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        // swift-corelibs-foundation truncates the interval to whole seconds (0.2 s fires at
        // once), so URLSession gets whole seconds past the deadline, which is kept below.
        urlRequest.timeoutInterval = Double((request.timeoutMs + 999) / 1000 + 1)
        for header in request.headers {
            urlRequest.setValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = Data(request.body)
        let once = CompletionOnce(completion)
        let task = session.dataTask(with: urlRequest) { _, response, error in
            if let http = response as? HTTPURLResponse {
                once.finish(.status(http.statusCode))
            } else if let error = error as? URLError, error.code == .timedOut {
                once.finish(.timedOut)
            } else {
                once.finish(.failed(error.map { "\($0.localizedDescription)" } ?? "no HTTP response"))
            }
        }
        deadlines.asyncAfter(deadline: .now() + .milliseconds(request.timeoutMs)) { [weak task] in
            if once.finish(.timedOut) { task?.cancel() }
        }
        task.resume()
    }
}

/// Lets the first of the reply and the deadline through.
private final class CompletionOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var completion: (@Sendable (HookOutcome) -> Void)?

    init(_ completion: @escaping @Sendable (HookOutcome) -> Void) {
        self.completion = completion
    }

    /// False when an outcome was already delivered.
    @discardableResult
    func finish(_ outcome: HookOutcome) -> Bool {
        lock.lock()
        let pending = completion
        completion = nil
        lock.unlock()
        pending?(outcome)
        return pending != nil
    }
}
