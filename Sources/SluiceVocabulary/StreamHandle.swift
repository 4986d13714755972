/// An opaque publish or play handle chosen by the server.
public typealias StreamHandle = String
