import CratedCore
import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// The real `crated` binary, run as a child process.
@Suite struct CommandLineTests {
    @Test func theBinaryFindsItsMigrationsWhereverItIsInstalled() throws {
        let directory = try TemporaryDirectory()
        let installed = directory.url.appending(path: "opt/bin")
        let elsewhere = directory.url.appending(path: "home/someone")
        try FileManager.default.createDirectory(at: installed, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere.appending(path: "data"), withIntermediateDirectories: true)
        let binary = installed.appending(path: "crated").path
        try FileManager.default.copyItem(atPath: Paths.cratedBinary, toPath: binary)

        let result = try run(binary, ["migrate", "--database", "data/crated.sqlite"], in: elsewhere.path)
        #expect(result.status == 0, "\(result.stderr)")
        let database = try AppDatabase.open(path: elsewhere.appending(path: "data/crated.sqlite").path)
        let applied = try database.reader.read { db in try String.fetchAll(db, sql: "SELECT file_name FROM schema_migration ORDER BY version") }
        #expect(applied == Migration.embedded.map(\.fileName))
        // It says what it applied, each by name, and when there was nothing to apply.
        let latest = Migration.embedded.last!.fileName
        #expect(result.stdout.hasPrefix("database data/crated.sqlite is at migration \(latest): applied \(applied.count) of \(applied.count)\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\n  \(applied[0])\n") && result.stdout.hasSuffix("  \(latest)\n"), "\(result.stdout)")
        let again = try run(binary, ["migrate", "--database", "data/crated.sqlite"], in: elsewhere.path)
        #expect(again.stdout == "database data/crated.sqlite is at migration \(latest): nothing to apply\n", "\(again.stdout)")
    }

    @Test func importPrintsASummaryOrAClearError() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        let ok = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database, "--json"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let summary = try JSONDecoder().decode(ImportSummary.self, from: Data(ok.stdout.utf8))
        #expect(summary.copiesAdded == 20 && summary.crates == 6)

        let text = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database, "--user", "collector"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("0 added, 0 updated, 20 unchanged"))

        #expect(!text.stdout.contains("not in this file"), "\(text.stdout)")

        // A later export without two of the records (sold on Discogs): the summary says they are kept.
        let rows = (1...3).map { exportRow(title: "Record \($0)", releaseId: "\(900 + $0)") }
        let earlier = try directory.write("earlier.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
        let later = try directory.write("later.csv", ([exportHeader] + rows.prefix(1)).joined(separator: "\n") + "\n")
        #expect(try run(Paths.cratedBinary, ["import", earlier, "--database", database, "--user", "seller"]).status == 0)
        let sold = try run(Paths.cratedBinary, ["import", later, "--database", database, "--user", "seller"])
        #expect(sold.stdout.contains("not in this file  2 copies of seller's, kept"), "\(sold.stdout)")
        let soldJSON = try run(Paths.cratedBinary, ["import", later, "--database", database, "--user", "seller", "--json", "--dry-run"])
        #expect(try JSONDecoder().decode(ImportSummary.self, from: Data(soldJSON.stdout.utf8)).copiesNotInFile == 2)

        // A rating changed in the app, and on Discogs too: the summary says crated's is kept.
        let rated = try directory.write("rated.csv", exportHeader + "\n" + exportRow(rating: "3", releaseId: "990") + "\n")
        let rerated = try directory.write("rerated.csv", exportHeader + "\n" + exportRow(rating: "2", releaseId: "990") + "\n")
        #expect(try run(Paths.cratedBinary, ["import", rated, "--database", database, "--user", "rater"]).status == 0)
        let opened = try AppDatabase.open(path: database)
        let (rater, copy) = try await opened.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'rater'")!,
             try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM collection_item")!)
        }
        _ = try await opened.updateCopy(id: copy, userId: rater, changes: CopyChanges(rating: .some(5)))
        let kept = try run(Paths.cratedBinary, ["import", rerated, "--database", database, "--user", "rater"])
        #expect(kept.stdout.contains("edits kept        1 field changed in crated, which the file gives another value of: crated's kept"), "\(kept.stdout)")

        let wantlist = try directory.write("wantlist.csv", "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,Notes\nA,B,C,D,LP,,1975,1,,\n")
        let refused = try run(Paths.cratedBinary, ["import", wantlist, "--database", database])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("wantlist export"))
        #expect(refused.stdout.isEmpty)

        let missingConfig = try run(Paths.cratedBinary, ["import", wantlist, "--config", directory.path("none.json")])
        #expect(missingConfig.status != 0)
        #expect(missingConfig.stderr.contains("configuration file not found"))
    }

    /// A spreadsheet's file: columns renamed, US dates that could be read either way. The import
    /// refuses to guess the dates' order, reads it from the option, and lists the columns it left out.
    @Test func importSaysWhatItLeftOutAndAsksForTheDateOrder() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        let header = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Media Condition,Notes,Shelf"
        let rows = ["X1,Band,Record,Label,LP,,2001,21,Uncategorized,02/01/2025 10:00,Mint (M),first press,A3",
                    "X2,Band,Other,Label,LP,,2002,22,Uncategorized,03/11/2025 10:00,,,"]
        let file = try directory.write("us.csv", ([header] + rows).joined(separator: "\n") + "\n")

        let refused = try run(Paths.cratedBinary, ["import", file, "--database", database])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("every Date Added in the file could be day or month first (line 2: 02/01/2025 10:00)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))

        let both = try run(Paths.cratedBinary, ["import", file, "--database", database, "--month-first", "--day-first"])
        #expect(both.status != 0 && both.stderr.contains("--month-first and --day-first cannot both be given"), "\(both.stderr)")

        let imported = try run(Paths.cratedBinary, ["import", file, "--database", database, "--month-first"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("Imported \(file) for collector into \(database)"), "\(imported.stdout)")
        #expect(imported.stdout.contains("columns ignored   Media Condition (crated reads Collection Media Condition), Notes (crated reads Collection Notes), Shelf"),
                "\(imported.stdout)")
        #expect(imported.stdout.contains("dates             slashed, read month first (as the option says)"), "\(imported.stdout)")
        let dates = try AppDatabase.open(path: database).reader.read { db in
            try String.fetchAll(db, sql: "SELECT date_added FROM collection_item ORDER BY id")
        }
        #expect(dates == ["2025-02-01T10:00:00Z", "2025-03-11T10:00:00Z"])
    }

    /// A file through a pipe: `-` is standard input, and `/dev/stdin` works as well.
    @Test func importReadsAPipe() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        let sample = Paths.ownFixture("sample-collection.csv")
        for argument in ["-", "/dev/stdin"] {
            let piped = try run("/bin/sh", ["-c", "cat \"$0\" | \"$1\" import \(argument) --database \"$2\"", sample, Paths.cratedBinary, database])
            #expect(piped.status == 0, "\(argument): \(piped.stderr)")
            #expect(piped.stdout.hasPrefix("Imported \(argument == "-" ? "standard input" : argument) for collector into \(database)"), "\(piped.stdout)")
        }
        let copies = try AppDatabase.open(path: database).reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_item") }
        #expect(copies == 20, "the second import of the same rows added nothing")
        let empty = try run("/bin/sh", ["-c", "\"$0\" import - --database \"$1\" < /dev/null", Paths.cratedBinary, database])
        #expect(empty.status != 0 && empty.stderr.contains("empty"), "\(empty.stderr)")
    }

    /// A mistyped --database: the commands that only read a database, or change what is already in
    /// it, refuse one that does not exist instead of making it, empty; `user list` says when there
    /// are no users.
    @Test func commandsThatReadRefuseADatabaseThatDoesNotExist() throws {
        let directory = try TemporaryDirectory()
        let typo = directory.path("typo.sqlite")
        let commands = [["user", "list"], ["user", "passwd", "collector"], ["token", "list"], ["token", "revoke", "crt_0123"],
                        ["token", "create", "--user", "collector"],
                        ["export", "--user", "collector"], ["artwork", "status"], ["artwork", "prune"], ["user", "remove", "collector", "--yes"],
                        ["user", "link", "collector", "dj"], ["user", "unlink", "collector"]]
        for arguments in commands {
            let result = try run(Paths.cratedBinary, arguments + ["--database", typo])
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains("there is no database at \(typo); `crated import` or `crated serve` makes one"), "\(arguments): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [])

        let empty = directory.path("empty.sqlite")
        #expect(try run(Paths.cratedBinary, ["migrate", "--database", empty]).status == 0)
        let noUsers = try run(Paths.cratedBinary, ["user", "list", "--database", empty])
        #expect(noUsers.status == 0)
        #expect(noUsers.stdout.isEmpty)
        #expect(noUsers.stderr.contains("no users in \(empty)"), "\(noUsers.stderr)")
        let noTokens = try run(Paths.cratedBinary, ["token", "list", "--database", empty])
        #expect(noTokens.status == 0 && noTokens.stdout.isEmpty)
        #expect(noTokens.stderr.contains("no tokens in \(empty)"), "\(noTokens.stderr)")
        // A command done leaves the database alone in its folder: no -wal or -shm file.
        #expect(try run(Paths.cratedBinary, ["artwork", "status", "--database", empty]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.hasPrefix("empty") } == ["empty.sqlite"])
    }

    /// `user link` ties a user to the Discogs account whose collection theirs is, which `user list`
    /// shows; an account already linked to another user, or an unknown user, is refused with the
    /// way out, and `user unlink` removes the link.
    @Test func usersAreLinkedToDiscogsAccounts() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        for name in ["collector", "alice"] {
            #expect(try run(Paths.cratedBinary, ["user", "add", name, "--database", database]).status == 0)
        }
        let linked = try run(Paths.cratedBinary, ["user", "link", "collector", " DJ-K ", "--database", database])
        #expect(linked.status == 0 && linked.stdout == "linked collector to the Discogs user DJ-K\n", "\(linked.stdout)\(linked.stderr)")
        #expect(try run(Paths.cratedBinary, ["user", "list", "--database", database]).stdout == "collector (Discogs: DJ-K)\nalice\n")

        let taken = try run(Paths.cratedBinary, ["user", "link", "alice", "dj-k", "--database", database])
        #expect(taken.status != 0)
        #expect(taken.stderr.contains("the Discogs user 'dj-k' is linked to collector; unlink it first (crated user unlink collector)"), "\(taken.stderr)")
        let unknown = try run(Paths.cratedBinary, ["user", "link", "nobody", "x", "--database", database])
        #expect(unknown.status != 0 && unknown.stderr.contains("no user named 'nobody'"), "\(unknown.stderr)")

        let unlinked = try run(Paths.cratedBinary, ["user", "unlink", "collector", "--database", database])
        #expect(unlinked.status == 0 && unlinked.stdout == "unlinked collector from the Discogs user DJ-K\n", "\(unlinked.stdout)")
        #expect(try run(Paths.cratedBinary, ["user", "unlink", "collector", "--database", database]).stdout == "collector was linked to no Discogs user\n")
        #expect(try run(Paths.cratedBinary, ["user", "link", "alice", "dj-k", "--database", database]).status == 0)
        #expect(try run(Paths.cratedBinary, ["user", "list", "--database", database]).stdout == "collector\nalice (Discogs: dj-k)\n")
        // Linking again says which link it replaces.
        let relinked = try run(Paths.cratedBinary, ["user", "link", "alice", "dj-k-2", "--database", database])
        #expect(relinked.stdout == "linked alice to the Discogs user dj-k-2, in place of dj-k\n", "\(relinked.stdout)\(relinked.stderr)")
    }

    /// A token is printed once at creation, listed by its prefix, and revoked by it; revoking it
    /// again says it already was, and an unknown prefix is an error.
    @Test func tokensAreCreatedListedAndRevoked() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database, "--user", "collector"]).status == 0)
        let created = try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--scope", "read", "--name", "phone", "--database", database])
        #expect(created.status == 0, "\(created.stderr)")
        let token = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.hasPrefix("crt_"))
        let prefix = String(token.dropFirst(4).prefix(12))

        let listed = try run(Paths.cratedBinary, ["token", "list", "--database", database])
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) })
        #expect(row.contains("collector") && row.contains("read") && row.contains("active") && row.hasSuffix("phone"), "\(row)")
        #expect(!listed.stdout.contains(token), "the secret is never listed")

        let revoked = try run(Paths.cratedBinary, ["token", "revoke", prefix, "--database", database])
        #expect(revoked.status == 0 && revoked.stdout == "revoked token \(prefix)\n", "\(revoked.stdout)\(revoked.stderr)")
        let again = try run(Paths.cratedBinary, ["token", "revoke", token, "--database", database])
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("token \(prefix) was already revoked, at 20"), "\(again.stdout)")
        #expect(try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout.split(separator: "\n")
            .first { $0.hasPrefix(prefix) }?.contains("revoked") == true)

        let unknown = try run(Paths.cratedBinary, ["token", "revoke", "000000000000", "--database", database])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no token with the prefix '000000000000'\n"), "\(unknown.stderr)")
        let short = try run(Paths.cratedBinary, ["token", "revoke", String(prefix.prefix(4)), "--database", database])
        #expect(short.status != 0)
        #expect(short.stderr.contains("(a prefix is the whole 12 characters crated token list shows)"), "\(short.stderr)")

        // A token made to expire lists the day it stops; one made without, "never".
        #expect(row.split(separator: " ", omittingEmptySubsequences: true).contains("never"), "\(row)")
        let in30Days = { String(Timestamp.string(from: Date().addingTimeInterval(30 * 24 * 3600)).prefix(10)) }
        let dayBefore = in30Days()
        let expiring = try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--expires-in-days", "30", "--database", database])
        #expect(expiring.status == 0, "\(expiring.stderr)")
        let expiringPrefix = String(expiring.stdout.dropFirst(4).prefix(12))
        let dayAfter = in30Days()
        let expiringRow = try #require(try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout
            .split(separator: "\n").first { $0.hasPrefix(expiringPrefix) })
        // Either day when the token was made across midnight (UTC).
        #expect((expiringRow.contains(" \(dayBefore)T") || expiringRow.contains(" \(dayAfter)T")) && expiringRow.contains("active"), "\(expiringRow)")
        let opened = try AppDatabase.open(path: database)
        try await opened.writer.write { db in
            try db.execute(sql: "UPDATE api_token SET expires_at = '2020-01-01T00:00:00Z' WHERE token_prefix = ?", arguments: [expiringPrefix])
        }
        try opened.close()
        #expect(try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout.split(separator: "\n")
            .first { $0.hasPrefix(expiringPrefix) }.map { $0.contains(" 2020-01-01T00:00:00Z ") && $0.contains(" expired ") } == true)
        // A web session's token stops with its session.
        let reopened = try AppDatabase.open(path: database)
        let userId = try #require(try reopened.user(named: "collector")?.id)
        let session = try await reopened.createSession(userId: userId, lifetime: 7 * 24 * 3600)
        try reopened.close()
        let sessionRow = try #require(try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout
            .split(separator: "\n").first { $0.hasSuffix("web session") })
        #expect(sessionRow.contains(" \(Timestamp.string(from: session.expiresAt)) ") && sessionRow.contains(" active "), "\(sessionRow)")
        for days in ["0", "36501", "soon"] {
            let refused = try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--expires-in-days", days, "--database", database])
            #expect(refused.status != 0 && refused.stderr.contains("expires-in-days"), "\(days): \(refused.stderr)")
        }
        // `token list` prints labels as they are: one line, no escapes, as an app's sign-in is held to.
        let tokensBefore = try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout
        for name in ["\u{1B}[31mred", "two\nlines", "bidi \u{202E}txt.exe", String(repeating: "x", count: 101), ""] {
            let refused = try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--name", name, "--database", database])
            #expect(refused.status != 0 && refused.stdout.isEmpty, "\(name.debugDescription)")
            #expect(refused.stderr.contains("invalid token label: one line of 1 to 100 characters, without control characters"), "\(refused.stderr)")
        }
        #expect(try run(Paths.cratedBinary, ["token", "list", "--database", database]).stdout == tokensBefore)
        // Emoji joined by zero-width joiners, and a subdivision flag's tags, are a device's name.
        for name in ["Dev \u{1F468}\u{200D}\u{1F4BB} iPad", "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} laptop"] {
            let made = try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--name", name, "--database", database])
            #expect(made.status == 0, "\(name.debugDescription): \(made.stderr)")
        }
    }

    /// A file that shares no copy with the user's collection (another collector's export, taken
    /// without --user by a database of one user) is imported, and said to be likely someone else's.
    @Test func aFileSharingNoCopyWithTheUsersIsSaidToBeLikelySomeoneElses() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database]).status == 0)
        let friends = try directory.write("friend.csv", """
            Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added
            F1,Friend Artist,Friend Album,Label,LP,,1990,990001,Uncategorized,2022-01-01 00:00:00
            F2,Friend Artist,Second Album,Label,LP,,1991,990002,Uncategorized,2022-01-02 00:00:00
            """)
        let merged = try run(Paths.cratedBinary, ["import", friends, "--database", database])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stderr.contains("warning: none of this file's 2 copies were collector's already, and none of collector's 20 are in it: "
                                       + "if it is another collector's, it was added to collector's collection (import it with --user NAME for another user)"),
                "\(merged.stderr)")
        // The collector's own file again: nothing to say.
        let again = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database])
        #expect(again.status == 0 && !again.stderr.contains("warning"), "\(again.stderr)")
    }

    /// `--user` names the owner, and makes them when there is none of that name: the summary says so,
    /// and a dry run says it would, without making them. A name a slip away from a user's
    /// (`colector`) is refused with the name meant, lest a typo start a second collection.
    @Test func importSaysWhenItCreatesTheUserAndRefusesANameNearlyAUsers() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        let csv = Paths.ownFixture("sample-collection.csv")
        #expect(try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "collector"]).status == 0)

        let dryRun = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "second", "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("would create user 'second'"), "\(dryRun.stdout)")
        #expect(dryRun.stdout.hasPrefix("Dry run of \(csv) for second in \(database): nothing was written; importing it would do this\n"), "\(dryRun.stdout)")
        #expect(!dryRun.stdout.contains("Imported"), "\(dryRun.stdout)")
        #expect(try AppDatabase.open(path: database).user(named: "second") == nil)

        let json = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "second", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try JSONDecoder().decode(ImportSummary.self, from: Data(json.stdout.utf8)).userCreated)
        let again = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "second"])
        #expect(again.status == 0)
        #expect(!again.stdout.contains("create"), "\(again.stdout)")

        for typo in ["colector", "Colletcor", "collectors", "secnod"] {
            for extra in [[], ["--dry-run"]] {
                let refused = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", typo] + extra)
                let meant = typo.hasPrefix("s") ? "second" : "collector"
                #expect(refused.status != 0 && refused.stderr.contains("no user named '\(typo)'; did you mean '\(meant)'?"), "\(typo): \(refused.stderr)")
                #expect(refused.stderr.contains("crated user add \(typo)"), "\(refused.stderr)")
            }
            #expect(try AppDatabase.open(path: database).user(named: typo) == nil)
        }
        #expect(try run(Paths.cratedBinary, ["user", "add", "colector", "--database", database]).status == 0)
        let deliberate = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "colector"])
        #expect(deliberate.status == 0 && !deliberate.stdout.contains("create"), "\(deliberate.stderr)")

        let text = try run(Paths.cratedBinary, ["import", csv, "--database", database, "--user", "third"])
        #expect(text.stdout.contains("created user 'third' (no user had that name)"), "\(text.stdout)")
    }

    /// A dry run or a refused file writes nothing: a database made for it is removed again, so a
    /// mistyped --database does not become an empty database that `export` or `token` would take for
    /// the real one, and a missing folder is not made. An existing database stays, unchanged.
    @Test func anImportThatWritesNothingLeavesNoNewDatabase() throws {
        let directory = try TemporaryDirectory()
        let csv = Paths.ownFixture("sample-collection.csv")
        let bad = try directory.write("bad.csv", exportHeader + "\n" + exportRow(rating: "9") + "\n")
        let missing = directory.path("typo.sqlite")
        let dryRun = try run(Paths.cratedBinary, ["import", csv, "--database", missing, "--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("would create user"), "\(dryRun.stdout)")
        let refused = try run(Paths.cratedBinary, ["import", bad, "--database", directory.path("fresh.sqlite")])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("rating"), "\(refused.stderr)")
        let inNewFolder = directory.path("new/folder/crated.sqlite")
        let noFolder = try run(Paths.cratedBinary, ["import", csv, "--database", inNewFolder])
        #expect(noFolder.status != 0)
        #expect(noFolder.stderr.contains("the folder of the database, \(directory.path("new/folder")), does not exist"), "\(noFolder.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["bad.csv"])
        #expect(try run(Paths.cratedBinary, ["export", "--database", missing]).stderr.contains("there is no database"))

        let existing = directory.path("crated.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", csv, "--database", existing]).status == 0)
        #expect(try run(Paths.cratedBinary, ["import", bad, "--database", existing]).status != 0)
        #expect(try run(Paths.cratedBinary, ["import", csv, "--database", existing, "--dry-run"]).status == 0)
        #expect(try AppDatabase.open(path: existing).user(named: "collector") != nil)
    }

    /// A database its user may not write (a service account pointed at root's files): the error
    /// says which file or folder to give that user. As root, whom permissions do not stop, the
    /// command runs as `nobody`.
    @Test func aDatabaseThisUserCannotWriteSaysWhatToGiveIt() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("data")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let database = folder + "/crated.sqlite"
        #expect(try run(Paths.cratedBinary, ["migrate", "--database", database]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }

        let existing = try runAsAnotherUser(["artwork", "status", "--database", database])
        #expect(existing.status != 0)
        #expect(existing.stderr.contains("cannot open database \(database): user "), "\(existing.stderr)")
        #expect(existing.stderr.contains("cannot write the file \(database) (SQLite said: attempt to write a readonly database)"), "\(existing.stderr)")

        let new = try runAsAnotherUser(["migrate", "--database", folder + "/new.sqlite"])
        #expect(new.status != 0)
        #expect(new.stderr.contains("cannot write the folder \(folder), where SQLite keeps the database's -wal and -shm files"), "\(new.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/new.sqlite"))
    }

    /// Runs `crated` as a user whom permissions stop: this one, or `nobody` when this one is root.
    private func runAsAnotherUser(_ arguments: [String]) throws -> ProcessResult {
        guard geteuid() == 0 else { return try run(Paths.cratedBinary, arguments) }
        return try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.cratedBinary] + arguments)
    }

    /// SIGKILL in the middle of a long import: the database is exactly as it was before.
    @Test func killingAnImportMidwayLeavesTheDatabaseAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let databasePath = directory.path("c.sqlite")
        let first = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", databasePath])
        #expect(first.status == 0)
        let before = try TableCounts(AppDatabase.open(path: databasePath))
        // The import is large against this database, so it sets the indexes aside (ImportIndexes):
        // the schema must come back with the rows.
        let snapshotBefore = try DatabaseContents(AppDatabase.open(path: databasePath))

        let big = directory.path("big.csv")
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.write(contentsOf: Data((exportHeader + "\n").utf8))
        for block in 0..<40 {
            var chunk = ""
            for i in 0..<5000 {
                let id = 100_000 + block * 5000 + i
                chunk += exportRow(artist: "Artist \(id % 997)", title: "Title \(id)", releaseId: "\(id)", folder: "Crate \(id % 7)") + "\n"
            }
            try handle.write(contentsOf: Data(chunk.utf8))
        }
        try handle.close()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        process.arguments = ["import", big, "--database", databasePath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once it has written a good part of its transaction to the WAL. Watched from a
        // thread of its own: beside the whole suite the concurrency pool can be busy for long enough
        // that an async loop wakes only after the import has finished.
        let watch = WALWatch()
        let (wal, pid) = (databasePath + "-wal", process.processIdentifier)
        Thread.detachNewThread {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, !watch.processEnded.withLock({ $0 }) {
                let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
                watch.largestWAL.withLock { $0 = max($0, size) }
                if size > 2_000_000 {
                    kill(pid, SIGKILL)
                    return
                }
                usleep(5_000)
            }
        }
        process.waitUntilExit()
        watch.processEnded.withLock { $0 = true }
        #expect(process.terminationReason == .uncaughtSignal, "the import finished before it could be killed; make the file bigger")
        #expect(watch.largestWAL.withLock { $0 } > 2_000_000)

        let after = try AppDatabase.open(path: databasePath)
        #expect(try TableCounts(after) == before)
        #expect(try DatabaseContents(after) == snapshotBefore)
        let integrity = try await after.reader.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        // The killed import's scratch search index (SearchIndexBuilder) is gone after the next bulk
        // import at the latest (another test's import may have removed it first).
        #expect(try run(Paths.cratedBinary, ["import", big, "--database", databasePath, "--user", "second"]).status == 0)
        let scratchFiles = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
            .filter { $0.hasPrefix("crated-import-search-\(pid)-") }
        #expect(scratchFiles == [])
    }
}

/// What the thread watching a killed import saw, and when to stop watching.
private final class WALWatch: Sendable {
    let largestWAL = Mutex(0)
    let processEnded = Mutex(false)
}
