import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Incoming messages: admission (rate limit, parked hooks), parse, dispatch, reply, and the
/// follow-ups that come after the reply.
extension SessionManager {
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
        guard session.state != .closing, sessions[session.connectionID] === session else { return }
        let verdict = session.rateLimiter.admit(nowMicros: clock())
        guard verdict == .allowed else {
            refuseOverLimit(incoming, from: session, exceeded: verdict == .exceeded)
            return
        }
        if session.hooks.isParked {
            // Per-session order: everything waits behind the parked request.
            queueBehindParked(incoming, from: session)
            return
        }
        process(incoming, from: session)
    }

    /// An admitted message: checked, parsed, dispatched and answered.
    func process(_ incoming: Incoming, from session: RPCSession) {
        let bytes: UnsafeRawBufferPointer
        switch incoming {
        case .oversized(let count):
            reject(session, id: .null, .invalidRequest("message of \(count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        case .binary:
            reject(session, id: .null, .invalidRequest("binary frames are not supported"))
            return
        case .text(let text):
            bytes = text
        }
        guard bytes.count <= config.maxMessageBytes else {
            reject(session, id: .null, .invalidRequest("message of \(bytes.count) bytes exceeds the limit of \(config.maxMessageBytes) bytes"))
            return
        }
        let envelope: RPCEnvelope
        do {
            envelope = try RPCEnvelope.parse(bytes)
        } catch {
            if error.answered {
                reject(session, id: error.id, error.error)
            } else {
                log.info("connection \(session.connectionID): ignored a malformed notification: \(error.error.message)")
            }
            return
        }
        guard case .request(let id, let method, let params) = envelope else {
            log.debug("connection \(session.connectionID): notification ignored")
            return
        }
        var followUp = FollowUp.none
        do throws(RPCError) {
            let result = try dispatch(id: id, method: method, params: params, session: session, followUp: &followUp)
            if case .parked = followUp {
                carryOutAfterReply()
                return
            }
            session.send(RPCMessage.result(id: id, result))
        } catch {
            log.info("connection \(session.connectionID): \(method) failed with \(error.code): \(error.message)")
            session.send(RPCMessage.error(id: id, error))
        }
        carryOutAfterReply()
        perform(followUp, for: session)
        drainMediaEvents()
    }

    func perform(_ followUp: FollowUp, for session: RPCSession) {
        switch followUp {
        case .none, .parked:
            break
        case .established:
            session.send(RPCMessage.notification("session", ["status": "ESTABLISHED"]))
            callSessionEstablished(session)
        case .rejectAppKey:
            session.close(code: CloseCode.unknownAppKey, reason: "Unknown app key")
        case .disconnect:
            end(session, code: CloseCode.normal, reason: "Disconnected", deliverOwnEvents: true)
        }
    }

    func reject(_ session: RPCSession, id: JSONValue, _ error: RPCError) {
        log.info("connection \(session.connectionID): rejected message with \(error.code): \(error.message)")
        session.send(RPCMessage.error(id: id, error))
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
            log.warn("connection \(session.connectionID): stayed over the rate limit, closing")
            end(session, code: CloseCode.rateLimited, reason: "Rate limit exceeded", deliverOwnEvents: false)
        } else {
            log.info("connection \(session.connectionID): over the rate limit")
        }
    }

    /// Ends the engine session (if connected) and closes the transport.
    private func end(_ session: RPCSession, code: UInt16, reason: String, deliverOwnEvents: Bool) {
        if let id = session.sessionID {
            if !deliverOwnEvents { connected[id] = nil }
            media.endSession(id)
            drainMediaEvents()
            connected[id] = nil
            callSessionEnded(id)
            drainMediaEvents()
            sessionEndedForHooks(id)
        }
        dropParked(session)
        session.close(code: code, reason: reason)
    }
}
