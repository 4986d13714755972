#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address and port, as a small hashable value.
/// Used as the key of the remote tuple that a transport has confirmed.
public struct SocketAddress: Hashable, CustomStringConvertible, Sendable {
    public enum Family: UInt8, Sendable { case ipv4, ipv6 }

    public let family: Family
    /// Network-order address bytes; IPv4 uses the first four.
    public let high: UInt64
    public let low: UInt64
    public let port: UInt16

    public init(ipv4 bytes: (UInt8, UInt8, UInt8, UInt8), port: UInt16) {
        family = .ipv4
        high = UInt64(bytes.0) << 24 | UInt64(bytes.1) << 16 | UInt64(bytes.2) << 8 | UInt64(bytes.3)
        low = 0
        self.port = port
    }

    public init(ipv6 high: UInt64, low: UInt64, port: UInt16) {
        family = .ipv6
        self.high = high
        self.low = low
        self.port = port
    }

    /// Parses "127.0.0.1" or "::1" with a port.
    public init?(host: String, port: UInt16) {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            let a = UInt32(bigEndian: v4.s_addr)
            self.init(ipv4: (UInt8(a >> 24), UInt8(a >> 16 & 0xff), UInt8(a >> 8 & 0xff), UInt8(a & 0xff)), port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            let (h, l) = withUnsafeBytes(of: &v6) { raw -> (UInt64, UInt64) in
                var h: UInt64 = 0, l: UInt64 = 0
                for i in 0..<8 { h = h << 8 | UInt64(raw[i]) }
                for i in 8..<16 { l = l << 8 | UInt64(raw[i]) }
                return (h, l)
            }
            self.init(ipv6: h, low: l, port: port)
            return
        }
        return nil
    }

    /// Reads a kernel socket address; nil for other families.
    public init?(_ storage: UnsafePointer<sockaddr_storage>) {
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            let sin = UnsafeRawPointer(storage).assumingMemoryBound(to: sockaddr_in.self).pointee
            let a = UInt32(bigEndian: sin.sin_addr.s_addr)
            self.init(ipv4: (UInt8(a >> 24), UInt8(a >> 16 & 0xff), UInt8(a >> 8 & 0xff), UInt8(a & 0xff)),
                      port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            var sin6 = UnsafeRawPointer(storage).assumingMemoryBound(to: sockaddr_in6.self).pointee
            let (h, l) = withUnsafeBytes(of: &sin6.sin6_addr) { raw -> (UInt64, UInt64) in
                var h: UInt64 = 0, l: UInt64 = 0
                for i in 0..<8 { h = h << 8 | UInt64(raw[i]) }
                for i in 8..<16 { l = l << 8 | UInt64(raw[i]) }
                return (h, l)
            }
            self.init(ipv6: h, low: l, port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }

    /// Writes this address into kernel form.
    public func write(to storage: UnsafeMutablePointer<sockaddr_storage>) {
        storage.pointee = sockaddr_storage()
        switch family {
        case .ipv4:
            UnsafeMutableRawPointer(storage).withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = port.bigEndian
                sin.pointee.sin_addr.s_addr = UInt32(truncatingIfNeeded: high).bigEndian
            }
        case .ipv6:
            UnsafeMutableRawPointer(storage).withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = port.bigEndian
                withUnsafeMutableBytes(of: &sin6.pointee.sin6_addr) { raw in
                    for i in 0..<8 { raw[i] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * i)) }
                    for i in 0..<8 { raw[8 + i] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * i)) }
                }
            }
        }
    }

    /// The address as four bytes (IPv4) or sixteen bytes (IPv6), network order.
    public var addressBytes: [UInt8] {
        switch family {
        case .ipv4:
            return (0..<4).map { UInt8(truncatingIfNeeded: high >> UInt64(24 - 8 * $0)) }
        case .ipv6:
            return (0..<8).map { UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * $0)) }
                + (0..<8).map { UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * $0)) }
        }
    }

    public var host: String {
        switch family {
        case .ipv4:
            return addressBytes.map(String.init).joined(separator: ".")
        case .ipv6:
            let b = addressBytes
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(b[$0]) << 8 | UInt16(b[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
    }

    public var isLoopback: Bool {
        switch family {
        case .ipv4: return (high >> 24) & 0xff == 127
        case .ipv6: return high == 0 && low == 1
        }
    }

    public var description: String {
        family == .ipv4 ? "\(host):\(port)" : "[\(host)]:\(port)"
    }
}
