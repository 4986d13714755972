import SluiceClient
import Testing

/// `PrecallUpdate` reads each pre-call `streamEvent` as docs/protocol.md spells it.
struct PrecallUpdateTests {
    private func event(_ type: StreamEventType, _ data: JSONValue?) -> StreamEvent {
        StreamEvent(handle: "precall-1", stream: "", type: type, data: data)
    }

    @Test func progressWithFiguresNotYetMeasured() throws {
        let update = PrecallUpdate(event(.precallProgress, ["elapsedMs": 2000, "rttMs": .null, "uplinkKbps": 950,
                                                             "lossUp": 0.01]))
        guard case .progress(let figures)? = update else { throw ClientTestError("not progress: \(String(describing: update))") }
        #expect(figures.elapsedMs == 2000 && figures.rttMs == nil && figures.uplinkKbps == 950 && figures.lossUp == 0.01)
        #expect(update?.isFinal == false)
    }

    @Test func theReportAndItsAdvice() throws {
        let data: JSONValue = ["durationMs": 8004, "uplinkKbps": 1000, "downlinkKbps": .null, "rttMs": 201.5,
                               "quality": ["score": 4.3, "level": "excellent"],
                               "recommended": ["publish": ["width": 640, "height": 360, "fps": 30, "bitrate": 800],
                                               "play": .null]]
        guard case .report(let report)? = PrecallUpdate(event(.precallReport, data)) else { throw ClientTestError("no report") }
        #expect(report.durationMs == 8004 && report.qualityLevel == "excellent" && report.qualityScore == 4.3)
        #expect(report.figures.rttMs == 201.5 && report.figures.downlinkKbps == nil)
        #expect(report.publish == PrecallPublishAdvice(width: 640, height: 360, fps: 30, bitrate: 800))
        #expect(report.playQuality == nil)
        // A report without its quality is not read as one.
        #expect(PrecallUpdate(event(.precallReport, ["durationMs": 1])) == nil)
    }

    @Test func aFailureAndOtherEvents() {
        #expect(PrecallUpdate(event(.precallFailed, ["info": "Failed by ICE timeout"])) == .failed(info: "Failed by ICE timeout"))
        #expect(PrecallUpdate(event(.precallFailed, nil))?.isFinal == true)
        #expect(PrecallUpdate(event(.layerChanged, ["layer": 1])) == nil)
    }
}
