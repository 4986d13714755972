/// A signaling session, as the media side sees it.
public typealias SessionID = String
