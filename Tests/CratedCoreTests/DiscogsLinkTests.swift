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

    /// The commands crated's messages suggest can be pasted into a shell whatever the user's name.
    @Test func aUserNameInASuggestedCommandIsOneShellWord() throws {
        #expect("collector".shellWord == "collector")
        #expect("dj.k-2@home".shellWord == "dj.k-2@home")
        #expect("DJ Kool".shellWord == "'DJ Kool'")
        #expect("Jo's records".shellWord == #"'Jo'\''s records'"#)
        #expect("$(rm -rf ~)".shellWord == "'$(rm -rf ~)'")
        #expect("Björk".shellWord == "'Björk'")
        #expect("".shellWord == "''")
        #expect("=records".shellWord == "'=records'" && "a=b".shellWord == "a=b")

        let temporary = try TemporaryDatabase()
        let database = temporary.database
        _ = try database.addUser(named: "DJ Kool")
        _ = try database.addUser(named: "ben")
        _ = try database.linkDiscogsUser("kool-records", toUserNamed: "DJ Kool")
        #expect(throws: DiscogsLinkError.linkedToAnother(discogsUser: "kool-records", userName: "DJ Kool")) {
            try database.linkDiscogsUser("kool-records", toUserNamed: "ben")
        }
        #expect(DiscogsLinkError.linkedToAnother(discogsUser: "kool-records", userName: "DJ Kool").description
            == "the Discogs user 'kool-records' is linked to DJ Kool; unlink it first (crated user unlink 'DJ Kool')")
    }
}
