import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// `crated export` as a real process.
@Suite struct ExportCommandTests {
    /// The sample collection, imported, with two plays and a paused turntable written as the player
    /// writes them.
    static func sampleDatabase(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("crated.sqlite")
        let imported = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", path])
        #expect(imported.status == 0, "\(imported.stderr)")
        try DatabaseQueue(path: path).write { db in
            let user = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'collector'")!
            let album = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE discogs_release_id = 3329867")!
            let jazz = try Int64.fetchOne(db, sql: "SELECT id FROM crate WHERE name = 'Jazz'")!
            try db.execute(sql: """
                INSERT INTO play_history (user_id, album_id, track_id, track_position, track_title, track_artist_credit, side, duration_ms,
                                          listening_id, played_at_ms)
                VALUES (?1, ?2, NULL, 'A1', 'Acknowledgement', NULL, 'A', 463000, 7, 1764100000000),
                       (?1, ?2, NULL, 'A2', 'Resolution', 'Elvin Jones', 'A', 442000, 7, 1764100463500)
                """, arguments: [user, album])
            try db.execute(sql: """
                INSERT INTO playback_state (user_id, revision, status, needs_flip, album_id, track_id, track_position, position_ms,
                                            since_ms, play_started_at_ms, listened_ms, listening_id, crate_id, queue_album_ids, updated_at_ms)
                VALUES (?, 12, 'paused', 0, ?, 99, 'B1', 61000, 1764100905500, 1764100905500, 61000, 7, ?, '[4,5]', 1764100966500)
                """, arguments: [user, album, jazz])
        }
        return path
    }

    @Test func jsonHoldsTheCopiesCratesPlayHistoryAndPlayer() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.sampleDatabase(in: directory)
        let result = try run(Paths.cratedBinary, ["export", "--user", "collector", "--format", "json", "--database", path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("exported 20 copies and 6 crates and 2 plays of collector as json"))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["format"] as? String == "crated-collection-export")
        #expect(document["version"] as? Int == 1)
        #expect((document["user"] as? [String: Any])?["name"] as? String == "collector")
        #expect(document["customFields"] as? [String] == ["Purchased At"])

        let copies = try #require(document["copies"] as? [[String: Any]])
        #expect(copies.count == 20)
        let kindOfBlue = try #require(copies.first { $0["discogsReleaseId"] as? Int == 1 && $0["dateAdded"] as? String == "2019-03-02T10:15:00Z" })
        #expect(kindOfBlue["title"] as? String == "Kind Of Blue")
        #expect(kindOfBlue["artist"] as? String == "Miles Davis")
        #expect(kindOfBlue["rating"] as? Int == 5)
        #expect(kindOfBlue["mediaCondition"] as? String == "Very Good Plus (VG+)")
        #expect(kindOfBlue["sleeveCondition"] as? String == "Very Good (VG)")
        #expect(kindOfBlue["notes"] as? String == "Original six-eye pressing, \"Columbia\" on the spine")
        #expect(kindOfBlue["folder"] as? String == "Jazz")
        #expect(kindOfBlue["year"] as? Int == 1959)
        #expect(kindOfBlue["format"] as? String == "LP, Album, Mono")
        #expect((kindOfBlue["customFields"] as? [[String: String]]) == [["name": "Purchased At", "value": "Rough Trade East"]])
        #expect((kindOfBlue["labels"] as? [[String: String]]) == [["name": "Columbia", "catalogNumber": "CL 1355"]])
        // The second Kind Of Blue is in no crate and unrated fields are left out.
        let playerCopy = try #require(copies.first { $0["discogsReleaseId"] as? Int == 1 && $0["dateAdded"] as? String == "2021-06-12T18:40:11Z" })
        #expect(playerCopy["folder"] == nil && (playerCopy["crateIds"] as? [Int])?.isEmpty == true)
        // Casey (2), twice on the same day: two copies told apart by their ordinal, the suffix kept for Discogs.
        let casey = copies.filter { $0["artist"] as? String == "Casey" }
        #expect(casey.map { $0["copyOrdinal"] as? Int } == [0, 1])
        #expect(casey.allSatisfy { $0["discogsArtistCredit"] as? String == "Casey (2)" && $0["year"] == nil })

        let crates = try #require(document["crates"] as? [[String: Any]])
        #expect(crates.map { $0["name"] as? String } == ["Ambient", "Dub & Reggae", "Jazz", "Rock", "Sell, maybe", "Soul & Funk"])
        let jazz = try #require(crates.first { $0["name"] as? String == "Jazz" })
        let inCrateOrder = try DatabaseQueue(path: path).read { db in
            try Int.fetchAll(db, sql: "SELECT item_id FROM crate_item JOIN crate ON crate.id = crate_id WHERE crate.name = 'Jazz' ORDER BY position")
        }
        #expect(jazz["copyIds"] as? [Int] == inCrateOrder)
        #expect(inCrateOrder.first == kindOfBlue["id"] as? Int)

        let plays = try #require(document["playHistory"] as? [[String: Any]])
        #expect(plays.map { $0["trackTitle"] as? String } == ["Acknowledgement", "Resolution"])
        #expect(plays.first?["albumTitle"] as? String == "A Love Supreme")
        // A play keeps the track's own artists; without them, the album's credit.
        #expect(plays.map { $0["artist"] as? String } == ["John Coltrane", "Elvin Jones"])
        #expect(plays.first?["playedAt"] as? String == "2025-11-25T19:46:40Z")
        #expect(plays.last?["playedAtMs"] as? Int == 1764100463500)
        #expect(plays.first?["durationMs"] as? Int == 463000)

        let player = try #require(document["player"] as? [String: Any])
        #expect(player["status"] as? String == "paused")
        #expect(player["revision"] as? Int == 12)
        #expect(player["trackPosition"] as? String == "B1")
        #expect(player["positionMs"] as? Int == 61000)
        #expect(player["queueAlbumIds"] as? [Int] == [4, 5])
        #expect(player["crateId"] as? Int == jazz["id"] as? Int)
    }

    @Test func csvGoesToStandardOutputOrReplacesAFileWhole() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.sampleDatabase(in: directory)
        let toStandardOutput = try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path])
        #expect(toStandardOutput.status == 0, "\(toStandardOutput.stderr)")
        #expect(toStandardOutput.stdout.hasPrefix("Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes,Collection Purchased At\n"))
        #expect(toStandardOutput.stdout.contains("\nCL 1355,Miles Davis,Kind Of Blue,Columbia,\"LP, Album, Mono\",5,1959,1,Jazz,2019-03-02 10:15:00,Very Good Plus (VG+),Very Good (VG),\"Original six-eye pressing, \"\"Columbia\"\" on the spine\",Rough Trade East\n"))
        let dash = try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path, "-"])
        #expect(dash.stdout == toStandardOutput.stdout)
        // The only user's, without --user, as import and sync choose.
        let onlyUser = try run(Paths.cratedBinary, ["export", "--database", path])
        #expect(onlyUser.status == 0, "\(onlyUser.stderr)")
        #expect(onlyUser.stdout == toStandardOutput.stdout)

        let out = directory.path("collection.csv")
        try "an older export\n".write(toFile: out, atomically: true, encoding: .utf8)
        let toFile = try run(Paths.cratedBinary, ["export", "--user", "COLLECTOR", "--database", path, out])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(toFile.stdout.contains("exported 20 copies and 6 crates of collector as discogs-csv to \(out)"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == toStandardOutput.stdout)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".partial-") }.isEmpty)
        // A new export is private to its owner, as the database it comes from.
        let fresh = directory.path("fresh.csv")
        #expect(try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path, fresh]).status == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: fresh)[.posixPermissions] as? Int == 0o600)

        // Through a symbolic link: the file it names is replaced, and the link stays a link.
        let link = directory.path("latest.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: out)
        try "an older export\n".write(toFile: out, atomically: false, encoding: .utf8)
        #expect(try run(Paths.cratedBinary, ["export", "--database", path, link]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == out)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == toStandardOutput.stdout)

        // The file imports into an empty database as the same 20 copies in the same six crates.
        let reimported = try run(Paths.cratedBinary, ["import", out, "--database", directory.path("again.sqlite"), "--json"])
        #expect(reimported.status == 0, "\(reimported.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(reimported.stdout.utf8)) as? [String: Any])
        #expect(summary["copiesAdded"] as? Int == 20 && summary["crates"] as? Int == 6)
    }

    @Test func exportFailuresSayWhy() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.sampleDatabase(in: directory)
        let unknown = try run(Paths.cratedBinary, ["export", "--user", "nobody", "--database", path])
        #expect(unknown.status != 0 && unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("no user named 'nobody' in this database (its users: collector)"))
        // Into a file: the refusal comes once the export has begun beside it, and leaves it as it was.
        let kept = directory.path("kept.csv")
        try "an earlier export\n".write(toFile: kept, atomically: false, encoding: .utf8)
        let listingBefore = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let unknownIntoFile = try run(Paths.cratedBinary, ["export", "--user", "nobody", "--database", path, kept])
        #expect(unknownIntoFile.status != 0)
        #expect(unknownIntoFile.stderr.contains("no user named 'nobody'"))
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "an earlier export\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == listingBefore)

        let intoDirectory = try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path, directory.url.path])
        #expect(intoDirectory.status != 0)
        #expect(intoDirectory.stderr.contains("cannot write the export to \(directory.url.path): it is a directory"))

        let overDatabase = try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path, path])
        #expect(overDatabase.status != 0)
        #expect(overDatabase.stderr.contains("cannot write the export to \(path): it is the database itself"))
        #expect(try Self.integrityOK(path))

        // A backup named where the export's file should be is left whole.
        let backup = directory.path("crated-backup.sqlite")
        #expect(try run(Paths.cratedBinary, ["backup", backup, "--database", path]).status == 0)
        let backupBytes = try Data(contentsOf: URL(fileURLWithPath: backup))
        let overBackup = try run(Paths.cratedBinary, ["export", "--user", "collector", "--format", "json", "--database", path, backup])
        #expect(overBackup.status != 0)
        #expect(overBackup.stderr.contains("cannot write the export to \(backup): it is a SQLite database (a backup?)"), "\(overBackup.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == backupBytes)

        let noDirectory = directory.path("missing/folder/out.csv")
        let unwritable = try run(Paths.cratedBinary, ["export", "--user", "collector", "--database", path, noDirectory])
        #expect(unwritable.status != 0)
        #expect(unwritable.stderr.contains("cannot write the export to \(noDirectory)"))

        let badFormat = try run(Paths.cratedBinary, ["export", "--user", "collector", "--format", "xml", "--database", path])
        #expect(badFormat.status != 0)
        #expect(badFormat.stderr.contains("discogs-csv") && badFormat.stderr.contains("json"))

        // Without --user: a database of several users asks which, one with none says so.
        #expect(try run(Paths.cratedBinary, ["user", "add", "second", "--database", path]).status == 0)
        let ambiguous = try run(Paths.cratedBinary, ["export", "--database", path])
        #expect(ambiguous.status != 0 && ambiguous.stdout.isEmpty)
        #expect(ambiguous.stderr.contains("this database has several users (collector, second); name one with --user"))
        let empty = directory.path("empty.sqlite")
        #expect(try run(Paths.cratedBinary, ["migrate", "--database", empty]).status == 0)
        let noUsers = try run(Paths.cratedBinary, ["export", "--database", empty])
        #expect(noUsers.status != 0 && noUsers.stdout.isEmpty)
        #expect(noUsers.stderr.contains("this database has no users, so no collection to export"))
    }

    static func integrityOK(_ path: String) throws -> Bool {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"]
    }
}
