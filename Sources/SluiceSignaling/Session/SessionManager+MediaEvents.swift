import SluiceControl
import SluiceJSON
import SluiceMedia
import SluiceVocabulary

/// Media events from the engine, each to the session that owns its handle (and the hooks).
extension SessionManager {
    /// Delivers every queued media event to the session that owns its handle.
    public func drainMediaEvents() {
        media.drainEvents { event in
            if case let .streamStatus(session, handle, stream, role, status, info, _) = event {
                // One line per status change: the server's record of every stream's life.
                let line = "stream \(stream) \(role.rawValue) \(handle) (session \(session)): \(status.rawValue)"
                    + (info.map { " \"\($0)\"" } ?? "")
                if status == .failed { log.warn(line) } else { log.info(line) }
            }
            releaseName(after: event)
            noteCallMedia(event)
            deliver(event)
        }
        // Outside the engine's drain: these may stop or mute call streams, which queues more.
        if !mediaCallEffects.isEmpty {
            let effects = mediaCallEffects
            mediaCallEffects.removeAll()
            carryOut(effects)
            drainMediaEvents()
        }
    }

    private func deliver(_ event: MediaEvent) {
        notifyHooks(of: event)
        switch event {
        case let .streamStatus(sessionID, handle, stream, role, status, info, ends):
            guard let target = connected[sessionID] else { return }
            if ends { target.handles[handle] = nil }
            target.send(RPCMessage.notification("streamStatus", MediaJSON.streamStatus(
                handle: handle, stream: stream, role: role, status: status, info: info)))
        case let .streamEvent(sessionID, handle, stream, type, by, data):
            guard let target = connected[sessionID] else { return }
            target.send(RPCMessage.notification("streamEvent", MediaJSON.streamEvent(
                handle: handle, stream: stream, type: type, by: by, data: data)))
        case let .precall(sessionID, handle, type, data, ends):
            guard let target = connected[sessionID] else { return }
            if ends { target.handles[handle] = nil }
            target.send(RPCMessage.notification("streamEvent", MediaJSON.precallEvent(handle: handle, type: type, data: data)))
        case .recording:
            // The publisher's own streamEvent came as a .streamEvent; this one is for hooks.
            break
        }
    }
}
