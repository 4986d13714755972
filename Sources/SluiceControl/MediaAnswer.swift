import SluiceVocabulary

public struct MediaAnswer: Sendable {
    public var handle: StreamHandle
    public var sdp: String

    public init(handle: StreamHandle, sdp: String) {
        self.handle = handle
        self.sdp = sdp
    }
}
