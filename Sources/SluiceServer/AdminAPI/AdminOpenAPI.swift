import SluiceJSON
import SluiceJSONParser

/// The OpenAPI 3.0 description of the HTTP API that `AdminAPI` serves (plus `/health`).
/// Kept as JSON text so it reads like the document it is; a unit test checks that it parses
/// and lists every route. An operation's common error answers are listed by code
/// (`"x-errors": [401, 403]`) and served as references to `components/responses`, so each
/// operation shows only what is its own.
enum AdminOpenAPI {
    /// The error answers shared by the operations, by status code.
    static let commonErrors: [Int: String] = [400: "BadRequest", 401: "Unauthorized", 403: "Disabled", 404: "NotFound",
                                              409: "RecordingOff", 415: "UnsupportedMediaType"]

    static func document(serverVersion: String) -> JSONValue {
        guard case .object(var root) = (try? JSONValue.parse(text)) ?? .null,
              case .object(var info)? = root["info"] else {
            return ["openapi": "3.0.3", "info": ["title": "Sluice", "version": .string(serverVersion)], "paths": [:]]
        }
        info["version"] = .string(serverVersion)
        root["info"] = .object(info)
        if let paths = root["paths"] { root["paths"] = expandingErrors(paths) }
        return .object(root)
    }

    /// Every `"x-errors": [codes]` member replaced, in place, by a `"code": {"$ref": ...}`
    /// member per code.
    static func expandingErrors(_ value: JSONValue) -> JSONValue {
        guard case .object(let object) = value else { return value }
        var expanded = JSONObject()
        for (key, member) in object {
            guard key == "x-errors", case .array(let codes) = member else {
                expanded[key] = expandingErrors(member)
                continue
            }
            for case .int(let code) in codes {
                let name = commonErrors[Int(code)] ?? "Unknown"
                expanded[String(code)] = ["$ref": .string("#/components/responses/\(name)")]
            }
        }
        return .object(expanded)
    }

    static let text = #"""
    {
      "openapi": "3.0.3",
      "info": {
        "title": "Sluice HTTP API",
        "version": "0",
        "description": "Admin REST API of the Sluice SFU (docs/protocol.md section 2). Admin endpoints need 'Authorization: Bearer <admin.token>'; an empty admin.token disables them (403)."
      },
      "components": {
        "securitySchemes": {
          "adminToken": {"type": "http", "scheme": "bearer", "description": "admin.token from the server config"},
          "metricsToken": {"type": "http", "scheme": "bearer", "description": "metrics.token from the server config; without one /metrics is open"}
        },
        "parameters": {
          "streamName": {"name": "name", "in": "path", "required": true,
                         "schema": {"type": "string", "pattern": "^[A-Za-z0-9._~-]{1,128}$"}},
          "sessionId": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
          "recordingPath": {"name": "path", "in": "path", "required": true,
                            "description": "a recording's path under recording.folder, as the list gives it (it may hold slashes)",
                            "schema": {"type": "string"}}
        },
        "responses": {
          "Ok": {"description": "Done", "content": {"application/json": {"schema": {"type": "object", "maxProperties": 0}}}},
          "BadRequest": {"description": "The body is not {\"kind\": \"audio\" | \"video\"}; the message says what is wrong",
                         "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Unauthorized": {"description": "Missing or wrong bearer token",
                           "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
                           "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "Disabled": {"description": "The admin API is disabled (admin.token is empty)",
                       "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "NotFound": {"description": "Unknown stream or session",
                       "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "MethodNotAllowed": {"description": "The path exists, the method does not; see the Allow header",
                               "headers": {"Allow": {"schema": {"type": "string"}}},
                               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "RecordingOff": {"description": "The server has no recording.folder (RECORDING_OFF)",
                           "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
          "UnsupportedMediaType": {"description": "Content-Type is present and not application/json",
                                   "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        },
        "schemas": {
          "Error": {
            "type": "object", "required": ["error"],
            "properties": {"error": {"type": "object", "required": ["code", "message", "reason"],
              "properties": {"code": {"type": "integer", "description": "the HTTP status"},
                             "message": {"type": "string"},
                             "reason": {"type": "string", "example": "STREAM_NOT_FOUND"}}}}
          },
          "KindStats": {
            "type": "object",
            "description": "Per-kind figures (docs/protocol.md section 3). Video adds fps, width, height, layer and keyFrames; a play handle also cacheStarts (instant join).",
            "properties": {
              "packets": {"type": "integer"}, "bytes": {"type": "integer"},
              "bitrate": {"type": "number", "description": "kbit/s over the last second"},
              "packetsLost": {"type": "integer"}, "fractionLost": {"type": "number"},
              "jitterMs": {"type": "number"}, "rttMs": {"type": "number"},
              "nacks": {"type": "integer"}, "plis": {"type": "integer"}, "firs": {"type": "integer"},
              "fps": {"type": "number"}, "width": {"type": "integer"}, "height": {"type": "integer"},
              "layer": {"type": "integer"}, "keyFrames": {"type": "integer"}, "cacheStarts": {"type": "integer"},
              "codec": {"type": "string"},
              "level": {"type": "number", "description": "publish audio with the audio level extension: dBov, -127 to 0"},
              "redPackets": {"type": "integer", "description": "audio with Opus RED negotiated: packets in RED received (publish) or sent (play)"}
            }
          },
          "Handle": {
            "type": "object", "required": ["handle", "stream", "role", "session"],
            "properties": {
              "handle": {"type": "string"}, "stream": {"type": "string"},
              "role": {"type": "string", "enum": ["publish", "play"]},
              "session": {"type": "string", "nullable": true},
              "identity": {"type": "string", "description": "the access token's sub of the handle's session, when it has one"},
              "worker": {"type": "integer", "description": "the media worker that serves the handle (0-based)"},
              "audio": {"$ref": "#/components/schemas/KindStats"},
              "video": {"$ref": "#/components/schemas/KindStats"}
            }
          },
          "MuteState": {
            "type": "object", "required": ["muted", "byPublisher", "byServer"],
            "properties": {"muted": {"type": "boolean"}, "byPublisher": {"type": "boolean"}, "byServer": {"type": "boolean"}}
          },
          "Stream": {
            "type": "object", "required": ["name", "appKey", "publisher", "players", "muted"],
            "properties": {
              "name": {"type": "string"},
              "appKey": {"type": "string", "nullable": true, "description": "the publisher's app"},
              "publisher": {"allOf": [{"$ref": "#/components/schemas/Handle"}], "nullable": true,
                            "description": "null while only waiting players hold the name"},
              "players": {"type": "array", "items": {"$ref": "#/components/schemas/Handle"}},
              "recording": {"type": "string", "nullable": true,
                            "description": "the file being written (without its extension until the first key frame opens it), or null"},
              "muted": {"type": "object", "required": ["audio", "video"],
                        "properties": {"audio": {"$ref": "#/components/schemas/MuteState"},
                                       "video": {"$ref": "#/components/schemas/MuteState"}}}
            }
          },
          "Session": {
            "type": "object", "required": ["id", "appKey", "handles"],
            "properties": {
              "id": {"type": "string"}, "appKey": {"type": "string", "nullable": true},
              "identity": {"type": "string", "description": "the access token's sub, when the session connected with one"},
              "handles": {"type": "array", "items": {"type": "object", "required": ["handle", "role", "stream"],
                "properties": {"handle": {"type": "string"}, "role": {"type": "string", "enum": ["publish", "play"]},
                               "stream": {"type": "string", "nullable": true}}}}
            }
          },
          "Recording": {
            "type": "object", "required": ["path", "bytes", "modified", "inProgress", "url"],
            "properties": {
              "path": {"type": "string", "description": "under recording.folder"},
              "bytes": {"type": "integer"},
              "modified": {"type": "integer", "description": "ms since the Unix epoch"},
              "inProgress": {"type": "boolean", "description": "a .part file: being written, or cut off by a crash"},
              "url": {"type": "string", "description": "where to download it"}
            }
          },
          "MuteRequest": {
            "type": "object", "required": ["kind"],
            "properties": {"kind": {"type": "string", "enum": ["audio", "video"]}}
          }
        }
      },
      "security": [{"adminToken": []}],
      "paths": {
        "/health": {
          "get": {"summary": "Liveness; 503 while the server drains, so that a load balancer sends new clients elsewhere", "security": [],
                  "responses": {"200": {"description": "{\"status\":\"ok\", \"version\", \"sessions\", \"uptimeSeconds\"}",
                                        "content": {"application/json": {"schema": {"type": "object"}}}},
                                "503": {"description": "{\"status\":\"draining\", \"version\", \"sessions\", \"uptimeSeconds\"}",
                                        "content": {"application/json": {"schema": {"type": "object"}}}}}}
        },
        "/metrics": {
          "get": {"summary": "Prometheus metrics (text format 0.0.4)", "security": [{}, {"metricsToken": []}],
                  "responses": {"200": {"description": "sluice_* metric families",
                                        "content": {"text/plain; version=0.0.4": {"schema": {"type": "string"}}}},
                                "x-errors": [401]}}
        },
        "/api/v1/openapi.json": {
          "get": {"summary": "This document", "security": [],
                  "responses": {"200": {"description": "OpenAPI 3.0",
                                        "content": {"application/json": {"schema": {"type": "object"}}}}}}
        },
        "/api/v1/streams": {
          "get": {"summary": "Every stream, with its publisher, players and mute state",
                  "responses": {
                    "200": {"description": "The streams, by name",
                            "content": {"application/json": {"schema": {"type": "object", "required": ["streams"],
                              "properties": {"streams": {"type": "array", "items": {"$ref": "#/components/schemas/Stream"}}}}}}},
                    "x-errors": [401, 403]}}
        },
        "/api/v1/streams/{name}": {
          "parameters": [{"$ref": "#/components/parameters/streamName"}],
          "get": {"summary": "One stream",
                  "responses": {
                    "200": {"description": "The stream",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Stream"}}}},
                    "x-errors": [401, 403, 404]}},
          "delete": {"summary": "Stop the publisher: it gets UNPUBLISHED \"Stopped by rest /terminate\", its players \"Stopped by publisher stop\"",
                     "responses": {
                       "200": {"$ref": "#/components/responses/Ok"},
                       "x-errors": [401, 403, 404]}}
        },
        "/api/v1/streams/{name}/mute": {
          "parameters": [{"$ref": "#/components/parameters/streamName"}],
          "post": {"summary": "Server-side (moderator) mute of one kind; the publisher cannot lift it",
                   "requestBody": {"required": true,
                                   "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MuteRequest"}}}},
                   "responses": {
                     "200": {"$ref": "#/components/responses/Ok"},
                     "x-errors": [400, 401, 403, 404, 415]}}
        },
        "/api/v1/streams/{name}/unmute": {
          "parameters": [{"$ref": "#/components/parameters/streamName"}],
          "post": {"summary": "Lift a server-side mute",
                   "requestBody": {"required": true,
                                   "content": {"application/json": {"schema": {"$ref": "#/components/schemas/MuteRequest"}}}},
                   "responses": {
                     "200": {"$ref": "#/components/responses/Ok"},
                     "x-errors": [400, 401, 403, 404, 415]}}
        },
        "/api/v1/streams/{name}/record": {
          "parameters": [{"$ref": "#/components/parameters/streamName"}],
          "post": {"summary": "Start recording the live stream (recordingStarted names the file when its first key frame is in)",
                   "responses": {
                     "202": {"description": "{\"stream\", \"recording\": true}",
                             "content": {"application/json": {"schema": {"type": "object"}}}},
                     "x-errors": [401, 403, 404],
                     "409": {"description": "ALREADY_RECORDING, RECORDING_OFF, or E2EE_STREAM (an end-to-end encrypted stream)",
                             "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                     "422": {"description": "NOTHING_TO_RECORD: no track of a codec Sluice records",
                             "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}},
          "delete": {"summary": "Stop the recording; the file is closed with what it has (recordingStopped follows); the stream goes on",
                     "responses": {
                       "200": {"description": "{\"stream\", \"recording\": false}",
                               "content": {"application/json": {"schema": {"type": "object"}}}},
                       "x-errors": [401, 403, 409],
                       "404": {"description": "STREAM_NOT_FOUND, or NOT_RECORDING",
                               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
        },
        "/api/v1/recordings": {
          "get": {"summary": "The recordings under recording.folder, by path",
                  "responses": {
                    "200": {"description": "folder and recordings",
                            "content": {"application/json": {"schema": {"type": "object", "required": ["folder", "recordings"],
                              "properties": {"folder": {"type": "string"},
                                             "recordings": {"type": "array", "items": {"$ref": "#/components/schemas/Recording"}}}}}}},
                    "x-errors": [401, 403, 409]}}
        },
        "/api/v1/recordings/{path}": {
          "parameters": [{"$ref": "#/components/parameters/recordingPath"},
                         {"name": "Range", "in": "header", "required": false, "schema": {"type": "string", "example": "bytes=0-"}}],
          "get": {"summary": "Download a recording; one Range (bytes=a-b, a-, -n) answers 206 with at most 16 MiB",
                  "responses": {
                    "200": {"description": "The whole file (at most 16 MiB; larger ones answer 413 and are fetched in ranges)",
                            "content": {"video/webm": {}, "video/mp4": {}}},
                    "206": {"description": "The range, with Content-Range", "content": {"video/webm": {}, "video/mp4": {}}},
                    "x-errors": [401, 403, 409],
                    "404": {"description": "RECORDING_NOT_FOUND",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                    "413": {"description": "FILE_TOO_LARGE: ask with Range",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                    "416": {"description": "RANGE_NOT_SATISFIABLE, with Content-Range: bytes */size",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
        },
        "/api/v1/sessions": {
          "get": {"summary": "Connected sessions and their handles",
                  "responses": {
                    "200": {"description": "Oldest connection first",
                            "content": {"application/json": {"schema": {"type": "object", "required": ["sessions"],
                              "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}}}}}},
                    "x-errors": [401, 403]}}
        },
        "/api/v1/cluster": {
          "get": {"summary": "The cluster's nodes and streams as this node last saw them (a cache; never waits on Redis); {\"enabled\": false} without cluster.redis",
                  "responses": {
                    "200": {"description": "enabled, nodeId, redis, redisReachable, problem, listedAt, nodes, streams, links (docs/cluster.md)",
                            "content": {"application/json": {"schema": {"type": "object", "required": ["enabled"],
                              "properties": {"enabled": {"type": "boolean"}, "nodeId": {"type": "string"},
                                             "redis": {"type": "string"}, "redisReachable": {"type": "boolean"},
                                             "problem": {"type": "string", "nullable": true}, "listedAt": {"type": "integer"},
                                             "nodes": {"type": "array", "items": {"type": "object"}},
                                             "streams": {"type": "array", "items": {"type": "object"}}}}}}},
                    "x-errors": [401, 403]}}
        },
        "/api/v1/tables": {
          "get": {"summary": "The size of every table kept per session, handle, stream, call, recording, pre-call test, data channel and link; each is back to its idle size when nothing is connected (names may change between versions)",
                  "responses": {
                    "200": {"description": "Sizes by owner and table",
                            "content": {"application/json": {"schema": {"type": "object", "required": ["tables"],
                              "properties": {"tables": {"type": "object", "additionalProperties": {"type": "integer"}}}}}}},
                    "x-errors": [401, 403]}}
        },
        "/api/v1/drain": {
          "post": {"summary": "Drain for a restart, as SIGTERM does: /health turns 503, new sessions, streams and players get 1017, sessions hear serverDraining, and the process exits 0 once the last session ends or server.drainSeconds pass",
                   "responses": {
                     "202": {"description": "The drain runs (or already ran)",
                             "content": {"application/json": {"schema": {"type": "object", "required": ["status", "drainSeconds"],
                               "properties": {"status": {"type": "string", "enum": ["draining"]},
                                              "drainSeconds": {"type": "integer"}}}}}},
                     "x-errors": [401, 403]}}
        },
        "/api/v1/sessions/{id}": {
          "parameters": [{"$ref": "#/components/parameters/sessionId"}],
          "delete": {"summary": "Kick a session: its handles end with \"Stopped by session disconnect\", then session DISCONNECTED \"Disconnected by server\" and close 1000",
                     "responses": {
                       "200": {"$ref": "#/components/responses/Ok"},
                       "x-errors": [401, 403, 404]}}
        }
      }
    }
    """#
}
