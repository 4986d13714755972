import Testing
@testable import SluiceRecord

@Suite struct H264DepacketizerTests {
    let pps: [UInt8] = [0x68, 0xce, 0x38, 0x80]

    @Test func stapAWithParameterSetsAndIDR() throws {
        let idr: [UInt8] = [0x65, 0x88, 0x84, 0x00]
        var stap: [UInt8] = [0x78]
        for unit in [spsNAL720x404, pps, idr] {
            stap += [UInt8(unit.count >> 8), UInt8(unit.count & 0xff)] + unit
        }
        var depacketizer = H264Depacketizer()
        let built = depacketizer.depacketize([videoPacket(1, 0, marker: true, stap)])
        let frame = try #require(built)
        let start: [UInt8] = [0, 0, 0, 1]
        #expect(frame.data == start + spsNAL720x404 + start + pps + start + idr)
        #expect(frame.isKeyFrame && frame.width == 720 && frame.height == 404)
        #expect(depacketizer.sequenceParameterSet == spsNAL720x404 && depacketizer.pictureParameterSet == pps)
    }

    @Test func fuAStartMiddleEndRebuildsTheNALUnit() throws {
        // An IDR (NRI 3, type 5) in three fragments: indicator 0x7c (NRI 3, type 28).
        let packets = [
            videoPacket(65534, 90, [0x7c, 0x85, 0x01, 0x02]),
            videoPacket(65535, 90, [0x7c, 0x05, 0x03]),
            videoPacket(0, 90, marker: true, [0x7c, 0x45, 0x04, 0x05]),
        ]
        var depacketizer = H264Depacketizer()
        let built = depacketizer.depacketize(packets)
        let frame = try #require(built)
        #expect(frame.data == [0, 0, 0, 1, 0x65, 0x01, 0x02, 0x03, 0x04, 0x05])
        #expect(frame.isKeyFrame)
        #expect(depacketizer.canStartFrame(packets[0].payload) && !depacketizer.canStartFrame(packets[1].payload))
    }

    @Test func singleNALUnitsAndNonIDR() throws {
        var depacketizer = H264Depacketizer()
        let built = depacketizer.depacketize([videoPacket(1, 0, [0x41, 0x9a]), videoPacket(2, 0, marker: true, [0x01, 0x9b])])
        let frame = try #require(built)
        #expect(frame.data == [0, 0, 0, 1, 0x41, 0x9a, 0, 0, 0, 1, 0x01, 0x9b] && !frame.isKeyFrame && frame.width == nil)
    }

    @Test func brokenFragmentsAndAggregatesGiveNil() {
        var depacketizer = H264Depacketizer()
        // A middle without its start; a start without its end; STAP-A length overrunning it.
        #expect(depacketizer.depacketize([videoPacket(2, 0, marker: true, [0x7c, 0x45, 0x04])]) == nil)
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x7c, 0x85, 0x01])]) == nil)
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x78, 0x00, 0x09, 0x65])]) == nil)
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x85])]) == nil)  // F bit
        #expect(depacketizer.depacketize([videoPacket(1, 0, marker: true, [0x7a, 0x00])]) == nil)  // FU-B
    }
}
