import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// `crated user remove` as a real process.
@Suite struct UserCommandTests {
    /// What the database holds of a user, by table.
    static func rows(of user: String, in path: String) throws -> [String: Int] {
        try DatabaseQueue(path: path).read { db in
            let id = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = ?", arguments: [user]) ?? -1
            var rows: [String: Int] = [:]
            for table in ["collection_item", "collection_album", "crate", "api_token", "play_history", "playback_state"] {
                rows[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE user_id = ?", arguments: [id])
            }
            rows["crate_item"] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate_item JOIN crate ON crate.id = crate_id WHERE crate.user_id = ?", arguments: [id])
            return rows
        }
    }

    /// `crated user passwd` reads the password from a pipe; a missing, short or control-character
    /// password, or an unknown user, is refused with the rule and sets nothing.
    @Test func passwdRefusesWhatItCannotSetAndSetsNothing() throws {
        let directory = try TemporaryDirectory()
        let path = try ExportCommandTests.sampleDatabase(in: directory)
        let passwords = { try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user_password") } }
        let refusals: [(input: String?, user: String, message: String)] = [
            (nil, "collector", "no password on standard input; nothing was changed"),
            ("short\n", "collector", "the password must have at least 8 characters"),
            ("long enough but \u{1B}[31mcoloured\n", "collector", "the password must not contain control characters"),
            ("        \n", "collector", "the password must not be only spaces"),
            ("a good long password\n", "nobody", "no user named 'nobody'"),
        ]
        for refusal in refusals {
            let result = try run(Paths.cratedBinary, ["user", "passwd", refusal.user, "--database", path], input: refusal.input)
            #expect(result.status != 0 && result.stdout.isEmpty, "\(refusal.message)")
            #expect(result.stderr.contains(refusal.message), "\(result.stderr)")
        }
        #expect(try passwords() == 0)

        let set = try run(Paths.cratedBinary, ["user", "passwd", "collector", "--database", path], input: "a good long password\n")
        #expect(set.status == 0 && set.stdout == "set the password of collector\n", "\(set.stderr)")
        #expect(try passwords() == 1)
    }

    @Test func removingAUserTakesWhatTheyOwnAndLeavesTheCatalogueAndOtherUsers() throws {
        let directory = try TemporaryDirectory()
        let path = try ExportCommandTests.sampleDatabase(in: directory)
        // A second collector of the same records, and a token for the first.
        let friend = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--user", "friend", "--database", path])
        #expect(friend.status == 0, "\(friend.stderr)")
        #expect(try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--database", path]).status == 0)
        let friendBefore = try Self.rows(of: "friend", in: path)
        let albums = { try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album") } }
        let albumsBefore = try albums()

        // Without --yes: what would go, and nothing goes.
        let asked = try run(Paths.cratedBinary, ["user", "remove", "COLLECTOR", "--database", path])
        #expect(asked.status != 0 && asked.stdout.isEmpty)
        #expect(asked.stderr.contains("removing collector would remove 20 copies, 6 crates, 1 API token, 2 plays (their albums stay in the catalogue); "
                                      + "nothing was removed: run it again with --yes to remove them"), "\(asked.stderr)")
        let collectorBefore = try Self.rows(of: "collector", in: path)
        #expect(collectorBefore["collection_item"] == 20 && collectorBefore["playback_state"] == 1)

        let removed = try run(Paths.cratedBinary, ["user", "remove", "collector", "--yes", "--database", path])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed user collector with 20 copies, 6 crates, 1 API token, 2 plays (their albums stay in the catalogue)\n")
        #expect(try Self.rows(of: "collector", in: path).values.allSatisfy { $0 == 0 })
        #expect(try Self.rows(of: "friend", in: path) == friendBefore)
        #expect(try albums() == albumsBefore)
        let (users, foreignKeyProblems, integrity, gridRows) = try DatabaseQueue(path: path).read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM user"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
             try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_album"))
        }
        #expect(users == ["friend"])
        #expect(foreignKeyProblems == 0 && integrity == ["ok"])
        // The grid's rows are the copies' own: every album of the friend's, none of anyone else's.
        #expect(gridRows == friendBefore["collection_album"])

        let again = try run(Paths.cratedBinary, ["user", "remove", "collector", "--yes", "--database", path])
        #expect(again.status != 0)
        #expect(again.stderr.contains("no user named 'collector'"))
    }

    @Test func aUserIsNotRemovedWhileServeRuns() throws {
        let directory = try TemporaryDirectory()
        let path = try ExportCommandTests.sampleDatabase(in: directory)
        // This process holds the lock serve takes.
        let lock = try ServeLock.acquire(databasePath: path)
        let refused = try run(Paths.cratedBinary, ["user", "remove", "collector", "--yes", "--database", path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("crated serve (pid \(getpid())) is running on \(path); stop it to remove a user"), "\(refused.stderr)")
        #expect(try Self.rows(of: "collector", in: path)["collection_item"] == 20)
        withExtendedLifetime(lock) {}
    }
}
