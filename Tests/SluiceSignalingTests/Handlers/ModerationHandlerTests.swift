import SluiceJSON
@testable import SluiceSignaling
import Testing

@Suite struct ModerationHandlerTests {
    private func grants(admin: Bool) -> AccessGrants {
        var grants = AccessGrants.unrestricted
        grants.admin = admin
        return grants
    }

    @Test func onlyAnAdminGrantMayMuteAStreamOfItsOwnApp() throws {
        let fixture = HandlerFixture()
        let handler = ModerationHandler(table: fixture.table)
        let (publisher, _) = fixture.connected("p1")
        var followUp = SessionManager.FollowUp.none
        _ = try StreamHandler(table: fixture.table, hooks: fixture.hooks).publish(
            RPCParams(["stream": "cam", "sdp": "v=0"]), id: 1, session: publisher, sessionID: "p1", followUp: &followUp)
        let (plain, _) = fixture.connected("m1", grants: grants(admin: false))
        let (moderator, _) = fixture.connected("m2", grants: grants(admin: true))
        let (stranger, _) = fixture.connected("m3", app: "other", grants: grants(admin: true))
        let params = RPCParams(["stream": "cam", "kind": "audio"])
        #expect(rpcError { _ = try handler.moderateMute(params, muted: true, session: plain) }?.code == 1012)
        #expect(rpcError { _ = try handler.moderateMute(params, muted: true, session: stranger) }?.code == 1004)
        #expect(fixture.media.serverMutes.isEmpty)
        _ = try handler.moderateMute(params, muted: true, session: moderator)
        #expect(fixture.media.serverMutes.count == 1)
        #expect(fixture.media.serverMutes.first?.0 == "cam")
        #expect(fixture.media.serverMutes.first?.2 == true)
    }
}
