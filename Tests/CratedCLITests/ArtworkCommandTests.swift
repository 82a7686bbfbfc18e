import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// `crated artwork status|prune`, and a daemon whose artwork directory cannot be written.
@Suite struct ArtworkCommandTests {
    @Test func statusCountsCoversAndPruneEvictsAndSweeps() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        #expect(try run(Paths.cratedBinary, ["migrate", "--database", database]).status == 0)
        // One cover on disk with a variant, as the daemon leaves them, and one not fetched yet.
        let artwork = directory.path("c-artwork")
        let sha = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(atPath: "\(artwork)/originals/ab", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(artwork)/variants/ab", withIntermediateDirectories: true)
        try Data(repeating: 1, count: 3000).write(to: URL(fileURLWithPath: "\(artwork)/originals/ab/\(sha)"))
        try Data(repeating: 2, count: 1000).write(to: URL(fileURLWithPath: "\(artwork)/variants/ab/\(sha)-192.jpg"))
        let stray = "\(artwork)/variants/ab/\(sha)-256.webp"
        try Data(repeating: 3, count: 10).write(to: URL(fileURLWithPath: stray))
        let opened = try AppDatabase.open(path: database)
        try opened.writer.write { db in
            let albumId = try db.insertAlbum(title: "A", artistId: try db.insertArtist("B"))
            try db.insertImage(albumId: albumId, position: 0, uri: "https://img.example/a.jpg", uri150: "", width: 600)
            // A back cover is not a cover: it is not counted.
            try db.insertImage(albumId: albumId, position: 1, kind: "secondary", uri: "https://img.example/b.jpg", uri150: "", width: 600)
            let other = try db.insertAlbum(title: "C", artistId: try db.insertArtist("D"))
            try db.insertImage(albumId: other, position: 0, uri: "https://img.example/c.jpg", uri150: "", width: 600)
            try db.execute(sql: """
                UPDATE artwork SET sha256 = ?, bytes = 3000, format = 'jpeg', width = 600, height = 600, color = '#010101',
                                   fetched_at = '2026-01-01T00:00:00Z', used_at = '2026-01-01T00:00:00Z'
                WHERE source_url = 'https://img.example/a.jpg'
                """, arguments: [sha])
            try db.execute(sql: "INSERT INTO artwork_variant VALUES (?, 192, 'jpeg', 192, 1000, '2026-01-01T00:00:00Z')", arguments: [sha])
            // One whose host answered 404.
            let gone = try db.insertAlbum(title: "E", artistId: try db.insertArtist("F"))
            try db.insertImage(albumId: gone, position: 0, uri: "https://img.example/e.jpg", uri150: "", width: 600)
            try db.execute(sql: """
                UPDATE artwork SET failures = 1, last_error = 'the image host answered 404', retry_at = '2026-01-08T00:00:00Z', unusable = 1
                WHERE source_url = 'https://img.example/e.jpg'
                """)
        }

        let status = try run(Paths.cratedBinary, ["artwork", "status", "--database", database])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Artwork in \(artwork)"))
        #expect(status.stdout.contains("covers stored     1"))
        #expect(status.stdout.contains("not fetched yet   1"))
        #expect(status.stdout.contains("failed            1"))
        #expect(status.stdout.contains("unusable          1 of the failed"))
        #expect(status.stdout.contains("variants          1 files"))

        let prune = try run(Paths.cratedBinary, ["artwork", "prune", "--target", "3500", "--database", database])
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout.contains("variants removed  1"))
        #expect(prune.stdout.contains("originals removed 0"))
        #expect(prune.stdout.contains("stray files       1"))
        #expect(!FileManager.default.fileExists(atPath: stray))
        #expect(!FileManager.default.fileExists(atPath: "\(artwork)/variants/ab/\(sha)-192.jpg"))
        #expect(FileManager.default.fileExists(atPath: "\(artwork)/originals/ab/\(sha)"))

        let refused = try run(Paths.cratedBinary, ["artwork", "prune", "--target=-1", "--database", database])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--target must not be negative"))
    }

    /// Status looks and makes nothing: on a database without covers, the folder it would use stays unmade.
    @Test func statusMakesNoFolder() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        #expect(try run(Paths.cratedBinary, ["migrate", "--database", database]).status == 0)
        let status = try run(Paths.cratedBinary, ["artwork", "status", "--database", database])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Artwork in \(directory.path("c-artwork"))"), "\(status.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("c-artwork")))
    }

    @Test func anArtworkDirectoryThatCannotBeWrittenStopsServeAtStartAndShowsInStatus() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("c.sqlite")
        let blocker = try directory.write("blocker", "a file where a directory should be")
        let environment = ["CRATED_ARTWORK_DIRECTORY": blocker + "/covers", "CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9"]
        let serve = try run(Paths.cratedBinary, ["serve", "--database", database, "--port", "0"], environment: environment)
        #expect(serve.status != 0)
        #expect(serve.stderr.contains("artwork directory \(blocker)/covers cannot be written"), "\(serve.stderr)")

        let status = try run(Paths.cratedBinary, ["artwork", "status", "--database", database], environment: environment)
        #expect(status.status != 0)
        #expect(status.stdout.contains("covers stored     0"))
        #expect(status.stderr.contains("cannot be written"))
    }
}
