import SluiceVocabulary
import Testing

@Suite struct NegotiatedExtensionsTests {
    /// An extmap id outside 1...255 is not an id an RTP packet can carry: not negotiated.
    @Test(arguments: [(Int?.none, UInt8?.none), (0, nil), (1, 1), (14, 14), (15, 15), (255, 255), (256, nil), (-1, nil)])
    func idValidation(value: Int?, expected: UInt8?) {
        #expect(NegotiatedExtensions.id(value) == expected)
    }

    @Test func defaultsAreNotNegotiated() {
        let none = NegotiatedExtensions()
        #expect(none.mid == nil && none.rid == nil && none.repairedRid == nil && none.absSendTime == nil
                && none.transportCC == nil && none.audioLevel == nil)
    }
}
