import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary
import SluiceLog

/// Incoming messages: admission (rate limit, parked hooks), parse, dispatch, reply, and the
/// follow-ups that come after the reply; and the end of a parked request's wait, whose reply
/// goes through the same steps.
extension SessionManager: SessionPipeline {
    enum Incoming {
        case text(UnsafeRawBufferPointer)
        case oversized(Int)
        case binary
    }

    /// What happens after the reply has been queued.
    enum FollowUp {
        case none
        case established
        case rejectAppKey
        case disconnect
        /// The request waits for an authorizing hook; no reply yet.
        case parked
    }

    func handle(_ incoming: Incoming, from session: RPCSession) {
        guard session.state != .closing, table.sessions[session.connectionID] === session else { return }
        let verdict = session.rateLimiter.admit(nowMicros: table.clock())
        guard verdict == .allowed else {
            refuseOverLimit(incoming, from: session, exceeded: verdict == .exceeded)
            return
        }
        if session.hooks.isParked {
            // Per-session order: everything waits behind the parked request.
            hookHandler.queueBehindParked(incoming, from: session)
            return
        }
        process(incoming, from: session)
    }

    /// An admitted message: checked, parsed, dispatched and answered.
    func process(_ incoming: Incoming, from session: RPCSession) {
        let bytes: UnsafeRawBufferPointer
        switch incoming {
        case .oversized(let count):
            table.reject(session, id: .null, .invalidRequest("message of \(count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        case .binary:
            table.reject(session, id: .null, .invalidRequest("binary frames are not supported"))
            return
        case .text(let text):
            bytes = text
        }
        guard bytes.count <= config.maxMessageBytes else {
            table.reject(session, id: .null, .invalidRequest("message of \(bytes.count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        }
        let envelope: RPCEnvelope
        do {
            envelope = try RPCEnvelope.parse(bytes)
        } catch {
            if error.answered {
                table.reject(session, id: error.id, error.error)
            } else {
                log.info("connection \(session.connectionID): ignored a malformed notification: \(error.error.message)",
                         session.logFields)
            }
            return
        }
        guard case .request(let id, let method, let params) = envelope else {
            log.debug("connection \(session.connectionID): notification ignored", session.logFields)
            return
        }
        var followUp = FollowUp.none
        do throws(RPCError) {
            let result = try dispatch(id: id, method: method, params: params, session: session, followUp: &followUp)
            if case .parked = followUp {
                calls.carryOutAfterReply()
                return
            }
            session.send(RPCMessage.result(id: id, result))
        } catch {
            log.info("connection \(session.connectionID): \(method) failed with \(error.code): \(error.message)", session.logFields)
            session.send(RPCMessage.error(id: id, error))
        }
        calls.carryOutAfterReply()
        perform(followUp, for: session)
        drainMediaEvents()
    }

    func perform(_ followUp: FollowUp, for session: RPCSession) {
        switch followUp {
        case .none, .parked:
            break
        case .established:
            session.send(RPCMessage.notification("session", ["status": "ESTABLISHED"]))
            calls.sessionEstablished(session)
        case .rejectAppKey:
            session.close(code: CloseCode.unknownAppKey, reason: "Unknown app key")
        case .disconnect:
            end(session, code: CloseCode.normal, reason: "Disconnected", deliverOwnEvents: true)
        }
    }

    /// Over the rate limit: 1008 to anything but a valid notification, with the request's
    /// id when it has a valid one.
    private func refuseOverLimit(_ incoming: Incoming, from session: RPCSession, exceeded: Bool) {
        var replyID: JSONValue? = .null
        if case .text(let bytes) = incoming, bytes.count <= config.maxMessageBytes {
            replyID = RPCEnvelope.replyID(for: bytes)
        }
        if let replyID { session.send(RPCMessage.error(id: replyID, .rateLimitExceeded)) }
        if exceeded {
            log.warn("connection \(session.connectionID): stayed over the rate limit, closing", session.logFields)
            end(session, code: CloseCode.rateLimited, reason: "Rate limit exceeded", deliverOwnEvents: false)
        } else {
            log.info("connection \(session.connectionID): over the rate limit", session.logFields)
        }
    }

    /// Ends the engine session (if connected) and closes the transport.
    private func end(_ session: RPCSession, code: UInt16, reason: String, deliverOwnEvents: Bool) {
        if let id = session.sessionID {
            if !deliverOwnEvents { table.connected[id] = nil }
            media.endSession(id)
            drainMediaEvents()
            table.connected[id] = nil
            calls.sessionEnded(id)
            drainMediaEvents()
            hookHandler.sessionEnded(id)
        }
        hookHandler.dropParked(session)
        session.close(code: code, reason: reason)
    }

    // MARK: Parked requests

    /// Service thread, after the hook dispatcher's `wakeup`: finishes the requests whose
    /// hooks answered (or timed out).
    public func drainHookCompletions() {
        for (token, outcome) in hooks.takeCompletions() {
            resumeParked(token) { (request: ParkedRequest) throws(RPCError) -> (JSONValue, FollowUp) in
                guard outcome.allows else {
                    log.info("connection \(request.session.connectionID): \(request.label) hook refused it: \(outcome)",
                             request.session.logFields)
                    throw .restrictedAccess
                }
                return try request.finish(request.session)
            }
        }
    }

    /// Ends the wait of a parked request: `reply` makes its answer (or error), which goes out,
    /// then what the answer leads to and what waited behind the request. `after` runs after
    /// the reply went out (notifications the reply causes come after it).
    func resumeParked(_ token: UInt64, after: () -> Void = {},
                      reply: (ParkedRequest) throws(RPCError) -> (JSONValue, FollowUp)) {
        // Gone when the session closed meanwhile: nothing is started for it.
        guard let request = hookHandler.takeParked(token) else { return }
        let session = request.session
        guard session.state != .closing, table.isOpen(session) else { return }
        var followUp = FollowUp.none
        do throws(RPCError) {
            let (result, then) = try reply(request)
            // Parked again (a publish behind an authorizing hook): its own answer comes later.
            if case .parked = then {
                after()
                calls.carryOutAfterReply()
                return
            }
            session.send(RPCMessage.result(id: request.id, result))
            followUp = then
        } catch {
            log.info("connection \(session.connectionID): \(request.label) failed with \(error.code): \(error.message)",
                     session.logFields)
            session.send(RPCMessage.error(id: request.id, error))
        }
        after()
        calls.carryOutAfterReply()
        perform(followUp, for: session)
        drainMediaEvents()
        resumeBacklog(of: session)
    }

    /// Handles what waited behind the parked request, until one parks again.
    private func resumeBacklog(of session: RPCSession) {
        while !session.hooks.isParked, !session.hooks.backlog.isEmpty, session.state != .closing, table.isOpen(session) {
            let next = session.hooks.backlog.removeFirst()
            switch next {
            case .text(let bytes): bytes.withUnsafeBytes { process(.text($0), from: session) }
            case .oversized(let count): process(.oversized(count), from: session)
            case .binary: process(.binary, from: session)
            }
        }
    }
}
