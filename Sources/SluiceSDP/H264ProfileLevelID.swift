/// H.264 profile-level-id (RFC 6184 8.1): profile_idc, profile-iop (constraint flags), level_idc.
///
/// Two offers name the same profile when profile_idc and the constraint bits that matter
/// map to the same profile (RFC 6184 table 5); the level is negotiated separately.
public struct H264ProfileLevelID: Sendable, Hashable {
    public enum Profile: Sendable, Hashable {
        case constrainedBaseline, baseline, main, extended, high, constrainedHigh, high10, high422, high444
    }

    public var profile: Profile
    public var profileIDC: UInt8
    public var profileIOP: UInt8
    public var levelIDC: UInt8

    /// RFC 6184: an absent profile-level-id means 420010 (Baseline, level 1.0).
    public static let defaultText = "420010"

    /// The matching rules as (profile_idc, mask over profile-iop, value after masking); the
    /// bit patterns come from RFC 6184 table 5, "x" bits being masked out.
    private static let patterns: [(UInt8, UInt8, UInt8, Profile)] = [
        (0x42, 0b0100_1111, 0b0100_0000, .constrainedBaseline),  // x1xx0000
        (0x4D, 0b1000_1111, 0b1000_0000, .constrainedBaseline),  // 1xxx0000
        (0x58, 0b1100_1111, 0b1100_0000, .constrainedBaseline),  // 11xx0000
        (0x42, 0b0100_1111, 0b0000_0000, .baseline),             // x0xx0000
        (0x58, 0b1100_1111, 0b1000_0000, .baseline),             // 10xx0000
        (0x4D, 0b1000_1111, 0b0000_0000, .main),                 // 0xxx0000
        (0x58, 0b1100_1111, 0b0000_0000, .extended),             // 00xx0000
        (0x64, 0b1111_1111, 0b0000_0000, .high),                 // 00000000
        (0x64, 0b1111_1111, 0b0000_1100, .constrainedHigh),      // 00001100
        (0x6E, 0b1111_1111, 0b0000_0000, .high10),
        (0x7A, 0b1111_1111, 0b0000_0000, .high422),
        (0xF4, 0b1111_1111, 0b0000_0000, .high444),
    ]

    /// Parses six hex digits; nil for anything else or a profile outside table 5.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 6, digits.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }),
              let value = UInt32(text, radix: 16) else { return nil }
        let idc = UInt8(truncatingIfNeeded: value >> 16)
        let iop = UInt8(truncatingIfNeeded: value >> 8)
        let level = UInt8(truncatingIfNeeded: value)
        guard let match = Self.patterns.first(where: { $0.0 == idc && iop & $0.1 == $0.2 }) else { return nil }
        self.profile = match.3
        self.profileIDC = idc
        self.profileIOP = iop
        self.levelIDC = level
    }

    /// From an fmtp parameter list, with the RFC default when the parameter is absent.
    public init?(parameters: [FormatParameter]) {
        self.init(parameters.value(of: "profile-level-id") ?? Self.defaultText)
    }

    /// Level 1b is coded as level_idc 11 with constraint_set3 in Baseline-family profiles,
    /// and sits between 1.0 and 1.1; this maps it to 10.5 (as 105 on a x10 scale) for comparison.
    public var levelOrder: Int {
        let isLevel1b = levelIDC == 11 && profileIOP & 0x10 != 0
            && (profile == .baseline || profile == .constrainedBaseline || profile == .main)
        return isLevel1b ? 105 : Int(levelIDC) * 10
    }

    public var text: String {
        let hex = [profileIDC, profileIOP, levelIDC].map { b -> String in
            let s = String(b, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return hex.joined()
    }

    /// The same profile at the lower of the two levels.
    public func withLevel(atMost other: H264ProfileLevelID) -> H264ProfileLevelID {
        other.levelOrder < levelOrder ? H264ProfileLevelID(copying: self, levelFrom: other) : self
    }

    private init(copying base: H264ProfileLevelID, levelFrom other: H264ProfileLevelID) {
        self = base
        levelIDC = other.levelIDC
        // Level 1b rides on constraint_set3; carry it over with the level.
        profileIOP = (base.profileIOP & ~0x10) | (other.profileIOP & 0x10)
    }
}
