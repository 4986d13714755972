import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A signaling channel over URLSessionWebSocketTask: the default on Apple platforms (and wss://).
/// It builds on Linux too, where it works only with a libcurl that supports WebSockets.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public final class URLSessionSignalingChannel: NSObject, SignalingChannel, URLSessionWebSocketDelegate,
    // @unchecked: an NSObject whose every `var` is read and written under `lock` (NSLock: Mutex needs macOS 15).
    @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()
    private var session: URLSession?
    private var task: URLSessionWebSocketTask?
    private var handler: (@Sendable (SignalingChannelEvent) -> Void)?
    private var opening: CheckedContinuation<Void, Error>?
    private var finished = false

    public init(url: URL) {
        self.url = url
    }

    public func open(handler: @escaping @Sendable (SignalingChannelEvent) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            lock.lock()
            self.handler = handler
            opening = continuation
            let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
            let task = session.webSocketTask(with: url)
            self.session = session
            self.task = task
            lock.unlock()
            task.resume()
            receiveNext(task)
        }
    }

    public func send(text: String) async throws {
        let task = lock.critical { finished ? nil : self.task }
        guard let task else { throw SignalingError.notOpen }
        try await task.send(.string(text))
    }

    public func close(code: UInt16, reason: String) {
        lock.lock()
        let task = self.task
        lock.unlock()
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
        task?.cancel(with: closeCode, reason: Data(reason.utf8))
    }

    private func receiveNext(_ task: URLSessionWebSocketTask) {
        task.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.string(let text)):
                self.deliver(.text(text))
                self.receiveNext(task)
            case .success:
                // The server sends text frames only.
                self.receiveNext(task)
            case .failure(let error):
                let code = task.closeCode == .invalid ? nil : UInt16(truncatingIfNeeded: task.closeCode.rawValue)
                self.finish(code: code, reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) }
                            ?? error.localizedDescription, error: error)
            }
        }
    }

    private func deliver(_ event: SignalingChannelEvent) {
        lock.lock()
        let handler = finished ? nil : self.handler
        lock.unlock()
        handler?(event)
    }

    /// Fails a pending open, or reports `.closed` once.
    private func finish(code: UInt16?, reason: String, error: Error?) {
        lock.lock()
        let wasFinished = finished
        finished = true
        let opening = self.opening
        self.opening = nil
        let handler = self.handler
        let session = self.session
        lock.unlock()
        guard !wasFinished else { return }
        session?.finishTasksAndInvalidate()
        if let opening {
            opening.resume(throwing: error.map { SignalingError.handshakeFailed("\($0)") }
                           ?? SignalingError.closed(code: code, reason: reason))
        } else {
            handler?(.closed(code: code, reason: reason))
        }
    }

    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didOpenWithProtocol protocol: String?) {
        lock.lock()
        let opening = self.opening
        self.opening = nil
        lock.unlock()
        opening?.resume()
    }

    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        finish(code: UInt16(truncatingIfNeeded: closeCode.rawValue),
               reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "", error: nil)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        finish(code: nil, reason: error.map { "\($0)" } ?? "", error: error)
    }
}
