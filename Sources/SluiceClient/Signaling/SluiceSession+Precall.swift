/// The pre-call network test (docs/protocol.md section 6, "Pre-call test").
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
extension SluiceSession {
    /// Starts a pre-call test of `seconds` (1 to 10; the app's default when nil) with an offer
    /// whose video is `sendrecv` (the server measures the uplink from it and pads back on it;
    /// a `sendonly` one gets the uplink, its loss and jitter only). Apply the answer, then read
    /// the handle's `streamEvent`s with `PrecallUpdate(_:)`: progress once a second, then the
    /// report (or the failure), after which the handle has ended by itself.
    public func precall(sdp: String, seconds: Int? = nil) async throws -> StreamAnswer {
        var params: JSONObject = ["sdp": .string(sdp)]
        if let seconds { params["seconds"] = JSONValue(seconds) }
        let result = try await call("precall", params: .object(params))
        guard let handle = result["handle"]?.stringValue, let answer = result["sdp"]?.stringValue else {
            throw SignalingError.malformedResponse("precall result without handle or sdp")
        }
        return StreamAnswer(handle: handle, sdp: answer)
    }
}
