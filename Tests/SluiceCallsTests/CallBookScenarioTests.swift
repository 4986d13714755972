import SluiceCalls
import SluiceVocabulary
import Testing

/// The statuses and end results each session was told, in order.
func told(_ effects: [CallEffect], _ session: SessionID) -> [String] {
    effects.compactMap { effect in
        switch effect {
        case let .status(target, _, status, _, endResult, _) where target == session:
            return endResult.map { "\(status.rawValue) \($0.rawValue)" } ?? status.rawValue
        case let .incomingCall(target, _) where target == session:
            return "incomingCall"
        default:
            return nil
        }
    }
}

func records(_ effects: [CallEffect]) -> [CallRecord] {
    effects.compactMap { if case .write(let record) = $0 { return record } else { return nil } }
}

@Suite("CallBook: rings, races, timeouts and devices")
struct CallBookScenarioTests {
    @Test("a call rings every session of the callee and tells the caller RINGING")
    func rings() throws {
        let (book, _) = onlineBook()
        let (id, effects) = try book.call(from: "A", to: "bob", video: true, audio: false, custom: #"{"x":1}"#)
        #expect(told(effects, "B") == ["incomingCall"])
        #expect(told(effects, "B2") == ["incomingCall"])
        #expect(told(effects, "A") == ["RINGING"])
        #expect(told(effects, "C").isEmpty)
        let record = try #require(records(effects).first)
        #expect(record.caller == "alice" && record.callee == "bob" && !record.audio && record.customJSON == #"{"x":1}"#)
        #expect(record.endResult == nil)
        #expect(book.call(id)?.status == .ringing)
    }

    @Test("calls need a user, another user, and a rate under perMinute")
    func callChecks() throws {
        let (book, clock) = onlineBook(CallSettings(ringTimeoutSeconds: 60, reconnectSeconds: 2, perMinute: 3))
        #expect(throws: CallRefusal.identityRequired) { try book.call(from: "X", to: "bob", video: true, audio: true) }
        #expect(throws: CallRefusal.callingSelf) { try book.call(from: "A", to: "alice", video: true, audio: true) }
        for _ in 0..<3 {
            let (id, _) = try book.call(from: "A", to: "nobody", video: true, audio: true)
            #expect(book.call(id)?.endResult == .noAnswer)
        }
        #expect(throws: CallRefusal.rateLimited) { try book.call(from: "A", to: "nobody", video: true, audio: true) }
        // Another session is not limited by alice's calls.
        _ = try book.call(from: "C", to: "nobody", video: true, audio: true)
        clock.advance(seconds: 61)
        _ = try book.call(from: "A", to: "nobody", video: true, audio: true)
    }

    @Test("noAnswer for a user with no session, busy for one in a call, and the caller's own other call")
    func noAnswerAndBusy() throws {
        let (book, _) = onlineBook()
        let (lonely, effects) = try book.call(from: "A", to: "dave", video: true, audio: true)
        #expect(told(effects, "A") == ["ENDED noAnswer"])
        #expect(records(effects).last?.endResult == "noAnswer")
        #expect(book.call(lonely)?.wasAccepted == false)
        let (first, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        let (busy, busyEffects) = try book.call(from: "C", to: "bob", video: true, audio: true)
        #expect(told(busyEffects, "C") == ["ENDED busy"])
        #expect(told(busyEffects, "B").isEmpty)
        #expect(book.call(busy)?.endResult == .busy)
        #expect(book.call(first)?.status == .ringing)
        #expect(throws: CallRefusal.wrongState("the caller is in another call")) {
            try book.call(from: "A", to: "carol", video: true, audio: true)
        }
    }

    @Test("call waiting lets a user in a call get and make another")
    func callWaiting() throws {
        let (book, _) = onlineBook()
        _ = try book.call(from: "A", to: "bob", video: true, audio: true)
        let (second, effects) = try book.call(from: "C", to: "bob", video: true, audio: true, callWaiting: true)
        #expect(told(effects, "B") == ["incomingCall"])
        #expect(book.call(second)?.status == .ringing)
        _ = try book.call(from: "A", to: "carol", video: true, audio: true, callWaiting: true)
    }

    @Test("accept on one device ends the ring on the other with otherDeviceAccepted; the second accept loses")
    func multiDevice() throws {
        let (book, _) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        let effects = try book.accept(id, by: "B2")
        #expect(told(effects, "B") == ["ENDED otherDeviceAccepted"])
        #expect(told(effects, "B2") == ["CONNECTING"])
        #expect(told(effects, "A") == ["CONNECTING"])
        #expect(book.call(id)?.calleeSession == "B2")
        #expect(throws: CallRefusal.wrongState("the call is not ringing")) { try book.accept(id, by: "B") }
        // The call's media names go to each side, crosswise.
        let media = effects.compactMap { effect -> (SessionID, CallSide)? in
            if case let .status(session, _, .connecting, _, _, side?) = effect { return (session, side) }
            return nil
        }
        #expect(media.map(\.0) == ["A", "B2"] && media.map(\.1) == [.caller, .callee])
        // Only the device may use the streams.
        let call = try #require(book.call(id))
        #expect(book.mayUse(stream: call.stream(.callee), publish: true, session: "B2"))
        #expect(!book.mayUse(stream: call.stream(.callee), publish: true, session: "B"))
        #expect(!book.mayUse(stream: call.stream(.caller), publish: true, session: "B2"))
        #expect(book.mayUse(stream: call.stream(.caller), publish: false, session: "B2"))
        #expect(book.mayUse(stream: call.stream(.callee), publish: false, session: "A"))
        #expect(!book.mayUse(stream: call.stream(.callee), publish: false, session: "C"))
        #expect(!book.mayUse(stream: "~call-nothing-caller", publish: false, session: "A"))
        // The other device cannot hang up for bob, nor hold.
        #expect(throws: CallRefusal.wrongState("this session is not the call's device")) { try book.hangup(id, by: "B") }
        _ = try book.hangup(id, by: "B2")
        #expect(!book.mayUse(stream: call.stream(.caller), publish: false, session: "B2"))
    }

    @Test("strangers and unknown ids get unknownCall; an ended call is forgotten after a minute")
    func unknownCalls() throws {
        let (book, clock) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        #expect(throws: CallRefusal.unknownCall) { try book.hangup(id, by: "C") }
        #expect(throws: CallRefusal.unknownCall) { try book.hangup(String(repeating: "f", count: 32), by: "A") }
        _ = try book.hangup(id, by: "A")
        #expect(throws: CallRefusal.wrongState("the call has ended")) { try book.accept(id, by: "B") }
        clock.advance(seconds: 61)
        _ = book.tick()
        #expect(book.call(id) == nil)
        #expect(throws: CallRefusal.unknownCall) { try book.accept(id, by: "B") }
    }

    @Test("the ring times out after ringTimeoutSeconds, on every ringing session")
    func ringTimeout() throws {
        let (book, clock) = onlineBook(CallSettings(ringTimeoutSeconds: 3, reconnectSeconds: 2, perMinute: 30))
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        clock.advance(seconds: 2.9)
        #expect(book.tick().isEmpty)
        clock.advance(seconds: 0.2)
        let effects = book.tick()
        for session in ["A", "B", "B2"] { #expect(told(effects, session) == ["ENDED timedOut"]) }
        let record = try #require(records(effects).last)
        #expect(record.endResult == "timedOut" && record.endedBy == nil && record.durationMs == 0)
        #expect(book.call(id)?.answeredAt == nil)
        // An accepted call does not time out.
        let (other, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        _ = try book.accept(other, by: "B")
        clock.advance(seconds: 10)
        #expect(book.tick().isEmpty)
        #expect(book.call(other)?.status == .connecting)
    }

    @Test("the log's record: answered and ended times and the duration")
    func durations() throws {
        let (book, clock) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        clock.advance(seconds: 1.5)
        let accepted = records(try book.accept(id, by: "B"))
        #expect(accepted.last?.answeredAt == clock.wall)
        clock.advance(seconds: 12.25)
        let ended = try #require(records(try book.hangup(id, by: "B")).last)
        #expect(ended.durationMs == 12_250)
        #expect(ended.endResult == "completed" && ended.endedBy == "bob")
        #expect(ended.endedAt == clock.wall && ended.startedAt == clock.wall - 13_750)
    }

    @Test("a device that reconnects within reconnectSeconds takes the call over")
    func reconnect() throws {
        let (book, clock) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        _ = try book.accept(id, by: "B")
        _ = book.mediaPlaying(id, side: .caller)
        _ = book.mediaPlaying(id, side: .callee)
        #expect(book.sessionOffline("B").isEmpty)
        clock.advance(seconds: 1.5)
        #expect(book.tick().isEmpty)
        let resumed = book.sessionOnline("B3", user: user("bob"))
        #expect(told(resumed, "B3") == ["CONNECTED"])
        #expect(resumed.contains { if case .status("B3", _, .connected, _, _, .callee?) = $0 { return true }; return false })
        clock.advance(seconds: 5)
        #expect(book.tick().isEmpty)
        #expect(book.call(id)?.calleeSession == "B3")
        _ = try book.hold(id, by: "B3")
    }

    @Test("a device that does not come back ends the call connectionLost after reconnectSeconds")
    func connectionLost() throws {
        let (book, clock) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        _ = try book.accept(id, by: "B")
        _ = book.sessionOffline("B")
        // bob's other device is no device of the call: it does not take it over.
        clock.advance(seconds: 1.9)
        #expect(book.tick().isEmpty)
        clock.advance(seconds: 0.2)
        let effects = book.tick()
        #expect(told(effects, "A") == ["ENDED connectionLost"])
        #expect(told(effects, "B2").isEmpty)
        #expect(effects.contains(.endMedia(callID: id)))
        #expect(records(effects).last?.endedBy == nil)
    }

    @Test("reconnectSeconds 0 ends at once; a lost caller ends a ringing call too")
    func immediateLoss() throws {
        let (book, clock) = onlineBook(CallSettings(ringTimeoutSeconds: 60, reconnectSeconds: 0, perMinute: 30))
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        let effects = book.sessionOffline("A")
        #expect(told(effects, "B") == ["ENDED connectionLost"] && told(effects, "B2") == ["ENDED connectionLost"])
        #expect(book.call(id)?.endResult == .connectionLost)
        _ = clock
    }

    @Test("a ringing device that leaves stops ringing; the call rings on for the others, and on a new device")
    func ringingDeviceLeaves() throws {
        let (book, _) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        #expect(book.sessionOffline("B2").isEmpty)
        #expect(book.call(id)?.ringing == ["B"])
        let joined = book.sessionOnline("B4", user: user("bob"))
        #expect(told(joined, "B4") == ["incomingCall"])
        let declined = try book.decline(id, by: "B4")
        #expect(told(declined, "B") == ["ENDED declined"] && told(declined, "A") == ["ENDED declined"])
    }

    @Test("hold and unhold: one stop for both holds, resume when the last lifts")
    func holds() throws {
        let (book, id) = try Stage.connected.make()
        let first = try book.hold(id, by: "A")
        #expect(first.contains(.hold(callID: id, held: true)))
        let second = try book.hold(id, by: "B")
        #expect(!second.contains(.hold(callID: id, held: true)))
        #expect(try book.unhold(id, by: "A").isEmpty)
        #expect(book.call(id)?.status == .onHold)
        let resumed = try book.unhold(id, by: "B")
        #expect(resumed.contains(.hold(callID: id, held: false)))
        #expect(told(resumed, "A") == ["CONNECTED"] && told(resumed, "B") == ["CONNECTED"])
    }

    @Test("CONNECTED needs both players; a failed call handle loses the call")
    func media() throws {
        let (book, id) = try Stage.connecting.make()
        #expect(book.mediaPlaying(id, side: .caller).isEmpty)
        let both = book.mediaPlaying(id, side: .callee)
        #expect(told(both, "A") == ["CONNECTED"] && told(both, "B") == ["CONNECTED"])
        let failed = book.mediaFailed(id, side: .callee)
        #expect(told(failed, "A") == ["ENDED connectionLost"])
    }

    @Test("shutdown ends every call unknown; users of another app never meet")
    func shutdownAndApps() throws {
        let (book, _) = onlineBook()
        _ = book.sessionOnline("Z", user: CallUser(appKey: "other", name: "zed"))
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        let (far, farEffects) = try book.call(from: "Z", to: "bob", video: true, audio: true)
        #expect(told(farEffects, "Z") == ["ENDED noAnswer"])
        #expect(throws: CallRefusal.unknownCall) { try book.hangup(far, by: "A") }
        #expect(book.onlineUsers(appKey: app) == ["alice", "bob", "carol"])
        let effects = book.shutdown()
        #expect(told(effects, "A") == ["ENDED unknown"])
        #expect(book.call(id)?.endResult == .unknown)
        #expect(book.activeCallCount == 0)
    }

    @Test("reserved stream names round-trip")
    func names() {
        let name = CallStreamName.make(callID: "abc", side: .callee)
        #expect(name == "~call-abc-callee")
        #expect(CallStreamName.parse(name)?.callID == "abc" && CallStreamName.parse(name)?.side == .callee)
        #expect(CallStreamName.parse("~call-abc-other") == nil)
        #expect(CallStreamName.parse("cam1") == nil)
    }
}
