import SluiceControl
import SluiceJSON
import SluiceSignaling

/// The admin API's recording endpoints (docs/protocol.md section 2): start and stop a live
/// stream's recording, list the recordings, and download one (with Range).
extension AdminAPI {
    public static let recordingsPath = "/api/v1/recordings"

    /// `POST` or `DELETE /api/v1/streams/{name}/record`.
    func recordRoute(_ name: String, request: HTTPRequest) -> HTTPResponse {
        switch request.method {
        case "POST":
            guard media.recordingEnabled else { return Self.recordingOff }
            do {
                _ = try media.startRecording(stream: name, appKey: appKey(ofStream: name) ?? "")
            } catch .streamNameInUse {
                return .error(status: 409, message: "Stream is being recorded already: \(name)", reason: "ALREADY_RECORDING")
            } catch .limitReached(MediaEngine.encryptedNotRecorded) {
                return .error(status: 409, message: "Stream is end-to-end encrypted: \(name); "
                              + MediaEngine.encryptedNotRecorded, reason: "E2EE_STREAM")
            } catch .noCommonCodecs {
                return .error(status: 422, message: "Stream has no track Sluice can record: \(name)", reason: "NOTHING_TO_RECORD")
            } catch {
                return Self.mediaFailure(error, stream: name)
            }
            // The file opens at the next video key frame (asked for now); `recordingStarted` names it.
            return .json(["stream": .string(name), "recording": true], status: 202)
        case "DELETE":
            guard media.recordingEnabled else { return Self.recordingOff }
            guard media.streamView(name)?.publisher != nil else { return Self.streamNotFound(name) }
            do {
                try media.stopRecording(stream: name)
            } catch {
                return .error(status: 404, message: "Stream is not being recorded: \(name)", reason: "NOT_RECORDING")
            }
            return .json(["stream": .string(name), "recording": false])
        default:
            return Self.methodNotAllowed("DELETE, POST")
        }
    }

    /// `GET /api/v1/recordings` and `GET /api/v1/recordings/{path}`.
    func recordingsRoute(_ request: HTTPRequest) -> HTTPResponse {
        guard Self.isRead(request) else { return Self.methodNotAllowed("GET") }
        guard let folder = media.recordingFolder else { return Self.recordingOff }
        let files = RecordingFiles(folder: folder)
        guard request.path.count > Self.recordingsPath.count + 1 else {
            guard request.path == Self.recordingsPath || request.path == Self.recordingsPath + "/" else { return .notFound }
            return .json(["folder": .string(folder), "recordings": .array(files.list())])
        }
        let relative = String(request.path.dropFirst(Self.recordingsPath.count + 1))
        return files.response(relative: relative, range: request.header("range"))
    }

    static let recordingOff = HTTPResponse.error(status: 409, message: MediaEngine.recordingOff, reason: "RECORDING_OFF")
}
