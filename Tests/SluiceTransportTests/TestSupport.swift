@testable import SluiceTransport

/// Parses hex with optional whitespace, as RFC listings print it.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = text.filter { $0.isHexDigit }
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}

func string(_ bytes: UnsafeRawBufferPointer?) -> String? {
    bytes.map { String(decoding: $0, as: UTF8.self) }
}
