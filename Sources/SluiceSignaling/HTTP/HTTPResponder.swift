/// Answers one HTTP request, at once or later. A deferred route (`HTTPRouter.addDeferred`)
/// gets one and may keep it past its own return, for example while an authorizing hook
/// runs; everything happens on the service thread.
public final class HTTPResponder {
    private enum State {
        /// The route handler is still running: an answer now goes out as a plain route's would.
        case inHandler
        /// The handler returned without answering; the answer is written in a later writeable callback.
        case waiting(deliver: (HTTPResponse) -> Void)
        case answered
        /// The connection closed before an answer was given.
        case abandoned
    }

    private var state = State.inHandler
    public private(set) var immediate: HTTPResponse?
    /// Called once when the connection closes before an answer was given, so that whatever
    /// the request made can be undone: nobody will learn about it.
    public var onAbandon: (() -> Void)?

    public init() {}

    /// Gives the answer. False when the client is gone or an answer was already given.
    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        switch state {
        case .inHandler:
            immediate = response
            state = .answered
            return true
        case .waiting(let deliver):
            state = .answered
            onAbandon = nil
            deliver(response)
            return true
        case .answered, .abandoned:
            return false
        }
    }

    public var isAnswered: Bool {
        if case .answered = state { return true }
        return false
    }

    /// The handler returned: a later answer goes to `deliver`.
    func handlerReturned(deliver: @escaping (HTTPResponse) -> Void) {
        guard case .inHandler = state else { return }
        state = .waiting(deliver: deliver)
    }

    /// The connection closed.
    func abandon() {
        guard case .waiting = state else { return }
        state = .abandoned
        let undo = onAbandon
        onAbandon = nil
        undo?()
    }
}
