import SluiceCalls
import SluiceVocabulary
import Testing

/// Clocks the test moves, and call ids that count up.
final class TestClock {
    var wall: Int64 = 1_700_000_000_000
    var mono: UInt64 = 1_000_000
    var nextID = 0

    func advance(seconds: Double) {
        wall += Int64(seconds * 1000)
        mono += UInt64(seconds * 1_000_000)
    }
}

let standardSettings = CallSettings(ringTimeoutSeconds: 60, reconnectSeconds: 2, perMinute: 30)

func makeBook(_ settings: CallSettings = standardSettings) -> (CallBook, TestClock) {
    let clock = TestClock()
    let book = CallBook(settings: settings, wallMillis: { clock.wall }, monoMicros: { clock.mono },
                        makeCallID: {
                            clock.nextID += 1
                            let hex = String(clock.nextID, radix: 16)
                            return String(repeating: "0", count: 32 - hex.count) + hex
                        })
    return (book, clock)
}

let app = "app"
func user(_ name: String) -> CallUser { CallUser(appKey: app, name: name) }

/// alice (A), bob on two devices (B, B2) and carol (C) online in one app.
func onlineBook(_ settings: CallSettings = standardSettings) -> (CallBook, TestClock) {
    let (book, clock) = makeBook(settings)
    _ = book.sessionOnline("A", user: user("alice"))
    _ = book.sessionOnline("B", user: user("bob"))
    _ = book.sessionOnline("B2", user: user("bob"))
    _ = book.sessionOnline("C", user: user("carol"))
    return (book, clock)
}

/// The states a call between alice (A) and bob (B, B2) can be in, reached by the methods.
enum Stage: CaseIterable {
    case ringing, connecting, connected, heldByAlice, ended

    /// A book with one call in this stage.
    func make() throws -> (CallBook, String) {
        let (book, _) = onlineBook()
        let (id, _) = try book.call(from: "A", to: "bob", video: true, audio: true)
        if self == .ringing { return (book, id) }
        _ = try book.accept(id, by: "B")
        if self == .connecting { return (book, id) }
        _ = book.mediaPlaying(id, side: .caller)
        _ = book.mediaPlaying(id, side: .callee)
        if self == .connected { return (book, id) }
        if self == .heldByAlice {
            _ = try book.hold(id, by: "A")
            return (book, id)
        }
        _ = try book.hangup(id, by: "A")
        return (book, id)
    }
}

enum Step: String, CaseIterable {
    case acceptByBob, acceptByAlice, declineByBob, declineByAlice, hangupByAlice, hangupByBob
    case holdByAlice, holdByBob, unholdByAlice, unholdByBob

    func run(_ book: CallBook, _ id: String) throws(CallRefusal) -> [CallEffect] {
        switch self {
        case .acceptByBob: return try book.accept(id, by: "B")
        case .acceptByAlice: return try book.accept(id, by: "A")
        case .declineByBob: return try book.decline(id, by: "B")
        case .declineByAlice: return try book.decline(id, by: "A")
        case .hangupByAlice: return try book.hangup(id, by: "A")
        case .hangupByBob: return try book.hangup(id, by: "B")
        case .holdByAlice: return try book.hold(id, by: "A")
        case .holdByBob: return try book.hold(id, by: "B")
        case .unholdByAlice: return try book.unhold(id, by: "A")
        case .unholdByBob: return try book.unhold(id, by: "B")
        }
    }
}

/// What a step does: the call's status after it (and its end result), or the refusal.
enum Outcome: Equatable {
    case status(CallStatus)
    case ended(CallEndResult)
    case refused(String)
}

@Suite("CallBook: every method in every state")
struct CallBookTableTests {
    static let ended = Outcome.refused("the call has ended")
    static let notRinging = Outcome.refused("the call is not ringing")
    static let notConnected = Outcome.refused("the call is not connected")
    static let notHeld = Outcome.refused("the call is not on hold by this side")

    /// The whole table: stage by step.
    static let table: [Stage: [Step: Outcome]] = [
        .ringing: [
            .acceptByBob: .status(.connecting), .acceptByAlice: .refused("only the callee accepts"),
            .declineByBob: .ended(.declined), .declineByAlice: .refused("only the callee declines"),
            .hangupByAlice: .ended(.canceled), .hangupByBob: .ended(.declined),
            // The caller's device is known from the start; the callee's only once one accepts.
            .holdByAlice: notConnected,
            .holdByBob: .refused("this session is not the call's device"),
            .unholdByAlice: notHeld,
            .unholdByBob: .refused("this session is not the call's device"),
        ],
        .connecting: [
            .acceptByBob: notRinging, .acceptByAlice: .refused("only the callee accepts"),
            .declineByBob: notRinging, .declineByAlice: .refused("only the callee declines"),
            .hangupByAlice: .ended(.completed), .hangupByBob: .ended(.completed),
            .holdByAlice: notConnected, .holdByBob: notConnected, .unholdByAlice: notHeld, .unholdByBob: notHeld,
        ],
        .connected: [
            .acceptByBob: notRinging, .acceptByAlice: .refused("only the callee accepts"),
            .declineByBob: notRinging, .declineByAlice: .refused("only the callee declines"),
            .hangupByAlice: .ended(.completed), .hangupByBob: .ended(.completed),
            .holdByAlice: .status(.onHold), .holdByBob: .status(.onHold), .unholdByAlice: notHeld, .unholdByBob: notHeld,
        ],
        .heldByAlice: [
            .acceptByBob: notRinging, .acceptByAlice: .refused("only the callee accepts"),
            .declineByBob: notRinging, .declineByAlice: .refused("only the callee declines"),
            .hangupByAlice: .ended(.completed), .hangupByBob: .ended(.completed),
            .holdByAlice: .refused("the call is on hold by this side already"), .holdByBob: .status(.onHold),
            .unholdByAlice: .status(.connected), .unholdByBob: notHeld,
        ],
        .ended: Dictionary(uniqueKeysWithValues: Step.allCases.map { ($0, ended) }),
    ]

    @Test("each step in each stage", arguments: Stage.allCases, Step.allCases)
    func step(_ stage: Stage, _ step: Step) throws {
        let expected = try #require(Self.table[stage]?[step])
        let (book, id) = try stage.make()
        let outcome: Outcome
        let refusal: CallRefusal?
        do throws(CallRefusal) {
            _ = try step.run(book, id)
            refusal = nil
        } catch {
            refusal = error
        }
        if let refusal {
            guard case .wrongState(let why) = refusal else {
                Issue.record("\(stage) \(step): unexpected \(refusal)")
                return
            }
            outcome = .refused(why)
        } else {
            let call = try #require(book.call(id))
            outcome = call.hasEnded ? .ended(try #require(call.endResult)) : .status(call.status)
        }
        #expect(outcome == expected, "\(stage) then \(step)")
    }

    @Test("a refused step changes nothing", arguments: Stage.allCases)
    func refusalsLeaveTheCall(_ stage: Stage) throws {
        for step in Step.allCases {
            guard case .refused = Self.table[stage]![step]! else { continue }
            let (book, id) = try stage.make()
            let before = book.call(id)
            _ = try? step.run(book, id)
            #expect(book.call(id) == before, "\(stage) then \(step)")
        }
    }
}
