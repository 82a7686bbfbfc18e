@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// Which Discogs account each user's collection is: one link per user, one user per account.
@Suite struct DiscogsLinkTests {
    @Test func aLinkIsReplacedNeverSharedAndGoesWithItsUser() throws {
        let temporary = try TemporaryDatabase()
        let database = temporary.database
        let ana = try database.addUser(named: "ana")
        let ben = try database.addUser(named: "ben")
        #expect(try database.linkedDiscogsUser(userId: ana.id!) == nil)

        _ = try database.linkDiscogsUser("  ana-records ", toUserNamed: "ANA")
        #expect(try database.linkedDiscogsUser(userId: ana.id!) == "ana-records")
        // An account is one user's, whatever its case; linking it again to the same user is fine.
        #expect(throws: DiscogsLinkError.linkedToAnother(discogsUser: "Ana-Records", userName: "ana")) {
            try database.linkDiscogsUser("Ana-Records", toUserNamed: "ben")
        }
        _ = try database.linkDiscogsUser("Ana-Records", toUserNamed: "ana")
        #expect(try database.linkedDiscogsUser(userId: ana.id!) == "Ana-Records")
        // A new link replaces the user's last.
        _ = try database.linkDiscogsUser("ana2", toUserNamed: "ana")
        _ = try database.linkDiscogsUser("Ana-Records", toUserNamed: "ben")
        #expect(try database.discogsLinks() == [ana.id!: "ana2", ben.id!: "Ana-Records"])

        #expect(throws: DiscogsLinkError.invalidName) { try database.linkDiscogsUser(" \t ", toUserNamed: "ana") }
        #expect(throws: DiscogsLinkError.invalidName) { try database.linkDiscogsUser(String(repeating: "x", count: 101), toUserNamed: "ana") }
        #expect(throws: UserError.notFound("cleo")) { try database.linkDiscogsUser("cleo", toUserNamed: "cleo") }

        let unlinked = try database.unlinkDiscogsUser(ofUserNamed: "ana")
        #expect(unlinked.user.name == "ana" && unlinked.discogsUser == "ana2")
        #expect(try database.unlinkDiscogsUser(ofUserNamed: "ana").discogsUser == nil)
        _ = try database.removeUser(named: "ben")
        #expect(try database.discogsLinks().isEmpty)
        _ = try database.linkDiscogsUser("Ana-Records", toUserNamed: "ana")
        #expect(try database.discogsLinks() == [ana.id!: "Ana-Records"])
    }
}
