import SluiceCalls
import SluiceJSON
import SluiceSignaling
import Testing

/// The nodes' call messages (docs/protocol.md section 6, **Cluster**): what one node writes the
/// other reads back the same, and a bad member is refused by its path.
@Suite struct ClusterCallJSONTests {
    static let call = String(repeating: "c", count: 32)
    static let session = String(repeating: "5", count: 32)
    static let summary = CallSummary(id: call, home: "node1", appKey: "callApp", caller: "alice", callee: "bob",
                                     video: true, audio: false, customJSON: #"{"topic":"x"}"#, startedAt: 1_700_000_000_000,
                                     answeredAt: 1_700_000_001_000, nodes: ["node2", "node3"])

    static let every: [ClusterCallMessage] = [
        .notify(session: session, side: .callee, summary: summary, event: .incomingCall),
        .notify(session: session, side: .callee, summary: summary,
                event: .callStatus(.ended, by: "bob", endResult: .otherDeviceAccepted, media: nil)),
        .notify(session: session, side: .caller, summary: summary, event: .callStatus(.connecting, by: nil, endResult: nil, media: .caller)),
        .hold(callID: call, held: true),
        .endMedia(callID: call),
        .method(name: "accept", callID: call, session: session, user: "bob", appKey: "callApp"),
        .media(callID: call, side: .callee, playing: false),
    ]

    @Test func aBatchAndARepliesRoundTrip() throws {
        let bytes = ClusterCallJSON.batch(from: "node-2", Self.every).serializedBytes()
        let decoded = try ClusterCallJSON.batch(from: bytes)
        #expect(decoded.node == "node-2")
        #expect(decoded.messages == Self.every)
        let reply = ClusterCallReply(messages: Array(Self.every.prefix(2)))
        #expect(try ClusterCallJSON.reply(from: ClusterCallJSON.reply(reply).serializedBytes()) == reply)
        let refusal = ClusterCallReply(error: .unknownCall)
        #expect(try ClusterCallJSON.reply(from: ClusterCallJSON.reply(refusal).serializedBytes()) == refusal)
    }

    @Test(arguments: [
        (#"[1]"#, ""),
        (#"{"messages":[{"type":"hold","callId":"CC","held":true}]}"#, "from"),
        (#"{"from":"n","messages":[]}"#, "messages"),
        (#"{"from":"n","messages":[{"type":"jump"}]}"#, "messages[0].type"),
        (#"{"from":"n","messages":[{"type":"hold","callId":"XX","held":true}]}"#, "messages[0].callId"),
        (#"{"from":"n","messages":[{"type":"hold","callId":"cccccccccccccccccccccccccccccccc","held":1}]}"#, "messages[0].held"),
        (#"{"from":"n","messages":[{"type":"method","method":"kick","callId":"cccccccccccccccccccccccccccccccc"}]}"#, "messages[0].method"),
        (#"{"from":"n","messages":[{"type":"media","callId":"cccccccccccccccccccccccccccccccc","side":"both","status":"playing"}]}"#, "messages[0].side"),
        (#"{"from":"n","messages":[{"type":"notify","session":"55555555555555555555555555555555","side":"callee","event":"incomingCall","call":{"id":"cccccccccccccccccccccccccccccccc","home":"n1","app":"a","caller":"al ice","callee":"bob","video":true,"audio":true,"custom":"{}","startedAt":1,"nodes":[]}}]}"#, "messages[0].call.caller"),
        (#"{"from":"n","messages":[{"type":"notify","session":"55555555555555555555555555555555","side":"callee","event":"incomingCall","call":{"id":"cccccccccccccccccccccccccccccccc","home":"n1","app":"a","caller":"al","callee":"bob","video":true,"audio":true,"custom":"[1]","startedAt":1,"nodes":[]}}]}"#, "messages[0].call.custom"),
        (#"{"from":"n","messages":[{"type":"notify","session":"55555555555555555555555555555555","side":"callee","event":"callStatus","status":"DANCING","call":{"id":"cccccccccccccccccccccccccccccccc","home":"n1","app":"a","caller":"al","callee":"bob","video":true,"audio":true,"custom":"{}","startedAt":1,"nodes":["x y"]}}]}"#, "messages[0].call.nodes[0]"),
    ])
    func aBadBatchNamesItsMember(text: String, field: String) {
        do {
            _ = try ClusterCallJSON.batch(from: Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.field == field, "\(error)")
        }
    }
}
