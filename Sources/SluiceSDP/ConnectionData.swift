/// c= line.
public struct ConnectionData: Sendable, Hashable {
    public var networkType: String
    public var addressType: String
    public var address: String

    public init(networkType: String = "IN", addressType: String = "IP4", address: String = "0.0.0.0") {
        self.networkType = networkType
        self.addressType = addressType
        self.address = address
    }
}
