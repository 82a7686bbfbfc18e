@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// User names are typed at sign-in and on the command line: one name whatever its case and however
/// its accents are encoded, and nothing invisible in it.
@Suite struct UserNameTests {
    @Test func aNameIsOneWhateverItsCaseAndItsAccentsEncoding() async throws {
        let temporary = try TemporaryDatabase()
        let database = temporary.database
        let jurgen = try database.addUser(named: "Jürgen")
        for taken in ["JÜRGEN", "jürgen", "Ju\u{308}rgen", " JU\u{308}RGEN "] {
            #expect(throws: UserError.alreadyExists("Jürgen"), "\(taken)") { try database.addUser(named: taken) }
            #expect(try database.user(named: taken.trimmingCharacters(in: .whitespaces))?.id == jurgen.id, "\(taken)")
        }
        // Stored composed, whichever way it was typed.
        let zoe = try database.addUser(named: "Zoe\u{301}")
        #expect(zoe.name.unicodeScalars.count == 3 && zoe.name == "Zoé")
        #expect(try database.user(named: "ZOÉ")?.id == zoe.id)
        // Sign-in, passwords, tokens and sessions find the user by any spelling of the name.
        try database.setPassword(userName: "JÜRGEN", password: "correct horse battery", cost: 4)
        for spelling in ["JÜRGEN", "jürgen", "Ju\u{308}rgen", "JU\u{308}RGEN"] {
            #expect(try database.verifyPassword(userName: spelling, password: "correct horse battery")?.id == jurgen.id, "\(spelling)")
            #expect(try database.hasPassword(userName: spelling), "\(spelling)")
        }
        _ = try database.createToken(userName: "JU\u{308}RGEN", scope: .read, label: "phone")
        #expect(try database.tokens(userName: "JÜRGEN").map(\.userName) == ["Jürgen"])
        _ = try await database.createSession(userId: jurgen.id!, lifetime: 3600)
        #expect(try database.activeSessionCount(userName: "JÜRGEN") == 1)
        #expect(try database.user(named: "Jurgen") == nil)
    }

    /// A database from before these rules may hold two names that are now one: each is still found
    /// by its own spelling (and ASCII case), and neither by a third that folds to both.
    @Test func twoNamesThatAreNowOneAreFoundOnlyAsSpelled() throws {
        let temporary = try TemporaryDatabase()
        let database = temporary.database
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO user (name, created_at) VALUES ('Björk', '2026-01-01T00:00:00Z'), ('BJÖRK', '2026-01-01T00:00:00Z')")
        }
        #expect(try database.user(named: "Björk")?.name == "Björk")
        #expect(try database.user(named: "BJÖRK")?.name == "BJÖRK")
        #expect(try database.user(named: "Bjo\u{308}rk") == nil)
    }

    @Test func invisibleCharactersAreRefused() throws {
        let temporary = try TemporaryDatabase()
        let database = temporary.database
        let reason = "it contains an invisible character (such as a direction mark, a zero-width space or a soft hyphen)"
        for name in ["adm\u{202E}nimda", "bo\u{200B}b", "al\u{FEFF}ice", "an\u{2066}a", "Jo\u{AD}hn", "\u{3164}", "a\u{E0041}b"] {
            #expect(throws: UserError.invalidName(reason), "\(name.unicodeScalars.map { String($0.value, radix: 16) })") {
                try database.addUser(named: name)
            }
        }
        #expect(throws: UserError.invalidName("it starts with '-', which commands would read as an option")) {
            try database.addUser(named: "-rf")
        }
        #expect(try database.addUser(named: "dj-k").name == "dj-k")
        // An emoji sequence keeps its joiner and its variation selector.
        #expect(try database.addUser(named: "DJ \u{2764}\u{FE0F}\u{200D}\u{1F525}").name == "DJ \u{2764}\u{FE0F}\u{200D}\u{1F525}")
        // Persian writes a zero-width non-joiner inside words.
        #expect(try database.addUser(named: "می\u{200C}خواهم").name == "می\u{200C}خواهم")
    }
}
