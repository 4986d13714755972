import Foundation
import SluiceVocabulary

/// A value of the protocol that may grow: known values as constants, any other kept as sent.
public protocol SluiceProtocolName: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral where RawValue == String {}

extension SluiceProtocolName {
    public init(stringLiteral value: String) { self.init(rawValue: value)! }
    public var description: String { rawValue }
}

/// `session` notification statuses.
public struct SessionStatus: SluiceProtocolName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let established: SessionStatus = "ESTABLISHED"
    public static let disconnected: SessionStatus = "DISCONNECTED"
    public static let failed: SessionStatus = "FAILED"
}

/// `streamStatus` statuses of publish and play handles.
public struct StreamStatus: SluiceProtocolName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let pending: StreamStatus = "PENDING"
    public static let publishing: StreamStatus = "PUBLISHING"
    public static let playing: StreamStatus = "PLAYING"
    public static let unpublished: StreamStatus = "UNPUBLISHED"
    public static let stopped: StreamStatus = "STOPPED"
    public static let failed: StreamStatus = "FAILED"
}

/// `streamEvent` types.
public struct StreamEventType: SluiceProtocolName {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let audioMuted: StreamEventType = "audioMuted"
    public static let audioUnmuted: StreamEventType = "audioUnmuted"
    public static let videoMuted: StreamEventType = "videoMuted"
    public static let videoUnmuted: StreamEventType = "videoUnmuted"
    public static let resize: StreamEventType = "resize"
    public static let layerChanged: StreamEventType = "layerChanged"
    public static let notEnoughBandwidth: StreamEventType = "notEnoughBandwidth"
    public static let connectionQuality: StreamEventType = "connectionQuality"
    public static let limitExceeded: StreamEventType = "limitExceeded"
    /// Dynacast, to a simulcast publisher: `data` `{rids, layers}`, the encodings with a
    /// taker (docs/protocol.md section 6); a sender sets the others inactive.
    public static let layersWanted: StreamEventType = "layersWanted"
    /// A pre-call test's figures so far, its report, its failure (`PrecallUpdate`).
    public static let precallProgress: StreamEventType = "precallProgress"
    public static let precallReport: StreamEventType = "precallReport"
    public static let precallFailed: StreamEventType = "precallFailed"
}

/// `publish` or `play`: the server's word for it (SluiceVocabulary), under the SDK's name.
public typealias StreamRole = SluiceVocabulary.StreamRole

/// The params of a `session` notification.
public struct SessionStatusUpdate: Sendable, Hashable {
    public var status: SessionStatus
    public var info: String?

    public init(status: SessionStatus, info: String? = nil) {
        self.status = status
        self.info = info
    }
}

/// The params of a `streamStatus` notification.
public struct StreamStatusUpdate: Sendable, Hashable {
    public var handle: String
    public var stream: String
    public var role: StreamRole
    public var status: StreamStatus
    public var info: String?

    public init(handle: String, stream: String, role: StreamRole, status: StreamStatus, info: String? = nil) {
        self.handle = handle
        self.stream = stream
        self.role = role
        self.status = status
        self.info = info
    }
}

/// The params of a `streamEvent` notification.
public struct StreamEvent: Sendable, Hashable {
    public var handle: String
    /// "" for a pre-call test's events, which belong to no stream.
    public var stream: String
    public var type: StreamEventType
    /// "publisher", "server" or "player".
    public var by: String?
    public var data: JSONValue?

    public init(handle: String, stream: String, type: StreamEventType, by: String? = nil, data: JSONValue? = nil) {
        self.handle = handle
        self.stream = stream
        self.type = type
        self.by = by
        self.data = data
    }
}

extension StreamEvent {
    /// A `layersWanted` event's rids (the encodings with a taker); nil for another type.
    public var wantedRids: [String]? {
        guard type == .layersWanted, let rids = data?["rids"]?.arrayValue else { return nil }
        return rids.compactMap(\.stringValue)
    }
}

/// What the server tells the client without being asked, in the order it was sent.
public enum SluiceNotification: Sendable, Hashable {
    case session(SessionStatusUpdate)
    case streamStatus(StreamStatusUpdate)
    case streamEvent(StreamEvent)
    /// A call rings on this session.
    case incomingCall(IncomingCall)
    case callStatus(CallStatusUpdate)
    /// After `followSpeakers`: the followed streams speaking now, loudest first.
    case activeSpeakers([ActiveSpeaker])
    /// After `followSpeakers`: the followed stream that holds the floor (nil: nobody).
    case dominantSpeaker(String?)
    /// The server drains for a restart: what runs goes on until the deadline, nothing new
    /// starts here (1017). `successor(for:url:)` makes the session to move to.
    case serverDraining(ServerDraining)
    /// A notification this client does not model, or one whose params it could not read.
    case other(method: String, params: JSONValue?)
    /// The connection ended; the stream finishes after this.
    case closed(code: UInt16?, reason: String)

    init(method: String, params: JSONValue?) {
        let p = params ?? .null
        switch method {
        case "session":
            if let status = p["status"]?.stringValue {
                self = .session(SessionStatusUpdate(status: SessionStatus(rawValue: status), info: p["info"]?.stringValue))
                return
            }
        case "streamStatus":
            if let handle = p["handle"]?.stringValue, let stream = p["stream"]?.stringValue,
               let role = p["role"]?.stringValue.flatMap(StreamRole.init(rawValue:)),
               let status = p["status"]?.stringValue {
                self = .streamStatus(StreamStatusUpdate(handle: handle, stream: stream, role: role,
                                                        status: StreamStatus(rawValue: status),
                                                        info: p["info"]?.stringValue))
                return
            }
        case "streamEvent":
            // A pre-call test's events have no stream: `stream` is then "".
            if let handle = p["handle"]?.stringValue, let type = p["type"]?.stringValue {
                let stream = p["stream"]?.stringValue ?? ""
                self = .streamEvent(StreamEvent(handle: handle, stream: stream, type: StreamEventType(rawValue: type),
                                                by: p["by"]?.stringValue, data: p["data"]))
                return
            }
        case "incomingCall":
            if let callId = p["callId"]?.stringValue, let from = p["from"]?.stringValue {
                self = .incomingCall(IncomingCall(callId: callId, from: from, video: p["video"]?.boolValue ?? true,
                                                  audio: p["audio"]?.boolValue ?? true, custom: p["custom"]))
                return
            }
        case "callStatus":
            if let callId = p["callId"]?.stringValue, let status = p["status"]?.stringValue {
                self = .callStatus(CallStatusUpdate(callId: callId, status: CallStatus(rawValue: status),
                                                    endResult: p["endResult"]?.stringValue.map(CallEndResult.init(rawValue:)),
                                                    by: p["by"]?.stringValue, streams: CallStreams(p)))
                return
            }
        case "activeSpeakers":
            if let speakers = p["speakers"]?.arrayValue {
                self = .activeSpeakers(speakers.compactMap(ActiveSpeaker.init))
                return
            }
        case "serverDraining":
            if let deadline = p["deadlineMs"]?.intValue, let servers = p["servers"]?.arrayValue {
                self = .serverDraining(ServerDraining(deadlineMs: Int(deadline),
                                                      servers: servers.compactMap { $0.stringValue.flatMap(URL.init(string:)) }))
                return
            }
        case "dominantSpeaker":
            if let name = p["name"], name.isNull || name.stringValue != nil {
                self = .dominantSpeaker(name.stringValue)
                return
            }
        default:
            break
        }
        self = .other(method: method, params: params)
    }
}
