import CratedCore
import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// `crated backup` and `crated restore` as real processes, against a database other writers use.
@Suite struct BackupCommandTests {
    static func integrity(_ path: String) throws -> [String] { try strings(path, "PRAGMA integrity_check") }

    /// The first column of a query's rows, read on a connection of the test's own.
    static func strings(_ path: String, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: sql) }
    }

    /// A thread in this process adds users, one transaction each, without pause, before, during and
    /// after `crated backup` runs. The backup passes the integrity check and holds every user whose
    /// write had returned before the backup was started.
    @Test func aBackupDuringABurstOfWritesHoldsEveryWriteAcknowledgedBeforeItBegan() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let database = try AppDatabase.open(path: path)
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("c.csv", syntheticExport(rows: 3000)))

        let acknowledged = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        // A thread of its own, not a task: the test's own thread blocks while the backup runs.
        let writer = Thread {
            var n = 0
            while !stop.load(ordering: .relaxed) {
                do {
                    _ = try database.addUser(named: "burst \(n)")
                    n += 1
                    acknowledged.store(n, ordering: .releasing)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        writer.start()
        try await waitUntil("20 writes acknowledged") { acknowledged.load(ordering: .acquiring) >= 20 }
        let acknowledgedBefore = acknowledged.load(ordering: .acquiring)
        let backup = directory.path("backup.sqlite")
        let result = try run(Paths.cratedBinary, ["backup", backup, "--database", path, "--pages-per-step", "16"])
        let acknowledgedAfter = acknowledged.load(ordering: .acquiring)
        stop.store(true, ordering: .relaxed)
        try await waitUntil("the writer to finish") { writer.isFinished }

        #expect(failures.withLock { $0 }.isEmpty)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("integrity check ok"))
        #expect(result.stdout.contains("schema version    \(Migration.embedded.compactMap(\.version).max()!) (\(Migration.embedded.last!.fileName))"))
        #expect(result.stdout.contains("3000 copies"))
        #expect(try Self.integrity(backup) == ["ok"])
        let names = Set(try Self.strings(backup, "SELECT name FROM user WHERE name LIKE 'burst %'"))
        let missing = (0..<acknowledgedBefore).map { "burst \($0)" }.filter { !names.contains($0) }
        #expect(missing.isEmpty, "acknowledged before the backup began but not in it: \(missing.prefix(5))")
        // What it holds is a prefix of the writes: one committed state, nothing written after the backup ended.
        #expect(names == Set((0..<names.count).map { "burst \($0)" }))
        #expect(names.count <= acknowledgedAfter)
    }

    /// SIGKILL while the backup is copying a 20,000-row database (paced so that it cannot finish
    /// first): the previous backup is byte for byte as it was, and the next backup clears the
    /// abandoned temporary file and succeeds.
    @Test func aKilledBackupLeavesThePreviousBackupIntact() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let database = try AppDatabase.open(path: path)
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("c.csv", syntheticExport(rows: 20_000)))
        let backup = directory.path("backup.sqlite")
        let first = try run(Paths.cratedBinary, ["backup", backup, "--database", path])
        #expect(first.status == 0, "\(first.stderr)")
        let previous = try Data(contentsOf: URL(fileURLWithPath: backup))
        _ = try await database.createCrate(userId: try #require(try database.user(named: "collector")).id!, name: "after the first backup")

        let child = Process()
        child.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        // One page every 20 ms: the database's thousands of pages take minutes, the kill comes in the first second.
        child.arguments = ["backup", backup, "--database", path, "--pages-per-step", "1", "--pause-ms", "20"]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let partial = "\(backup).partial-\(child.processIdentifier)"
        let deadline = ContinuousClock.now + .seconds(60)
        while !FileManager.default.fileExists(atPath: partial) && child.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(child.isRunning, "crated backup ended before it was killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(FileManager.default.fileExists(atPath: partial))
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == previous)
        #expect(try Self.integrity(backup) == ["ok"])

        let again = try run(Paths.cratedBinary, ["backup", backup, "--database", path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: partial))
        let crates = try Self.strings(backup, "SELECT name FROM crate")
        #expect(crates.contains("after the first backup"))
    }

    @Test func backupFailuresSayWhy() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        _ = try AppDatabase.open(path: path)
        let itself = try run(Paths.cratedBinary, ["backup", path, "--database", path])
        #expect(itself.status != 0)
        #expect(itself.stderr.contains("backup failed: \(path) is the database \(path) itself; name another file"))
        let missing = try run(Paths.cratedBinary, ["backup", directory.path("b.sqlite"), "--database", directory.path("none.sqlite")])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("backup failed: there is no database at \(directory.path("none.sqlite"))"))
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.sqlite")))
        let badStep = try run(Paths.cratedBinary, ["backup", directory.path("b.sqlite"), "--database", path, "--pages-per-step", "0"])
        #expect(badStep.status != 0)
        #expect(badStep.stderr.contains("--pages-per-step must be at least 1"))
    }

    @Test func restoreRefusesWhatItCannotRestoreAndRestoresABackup() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let imported = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", path])
        #expect(imported.status == 0)
        let backup = directory.path("backup.sqlite")
        #expect(try run(Paths.cratedBinary, ["backup", backup, "--database", path]).status == 0)
        let before = try DatabaseContents(AppDatabase.open(path: backup))
        #expect(try run(Paths.cratedBinary, ["user", "add", "later", "--database", path]).status == 0)

        let text = try directory.write("notes.txt", "not a database\n")
        let other = directory.path("other.sqlite")
        try DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let newer = directory.path("newer.sqlite")
        try FileManager.default.copyItem(atPath: backup, toPath: newer)
        try DatabaseQueue(path: newer).write { db in
            try db.execute(sql: "INSERT INTO schema_migration VALUES (9999, '9999_next.sql', 'x', '2030-01-01T00:00:00Z')")
        }
        let refusals = [
            (text, "restore refused: \(text) is not a SQLite database: it starts with 'not a database', not SQLite's header"),
            (other, "restore refused: \(other) is a SQLite database but not a crated one: it has no schema_migration table (its tables: t)"),
            (newer, "restore refused: \(newer) was written by a newer crated: it has migration 9999 (9999_next.sql), which this crated does not know"),
            (directory.path("none.sqlite"), "restore refused: there is no database at \(directory.path("none.sqlite"))"),
        ]
        for (file, message) in refusals {
            let refused = try run(Paths.cratedBinary, ["restore", file, "--database", path])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
        #expect(try AppDatabase.open(path: path).user(named: "later") != nil)

        let restored = try run(Paths.cratedBinary, ["restore", backup, "--database", path])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("restored \(backup) into \(path)"))
        #expect(restored.stdout.contains("20 copies"))
        let database = try AppDatabase.open(path: path)
        #expect(try database.user(named: "later") == nil)
        #expect(try DatabaseContents(database) == before)
    }

    /// A database or backup reached through a symbolic link: the file the link names is replaced,
    /// and the link stays a link.
    @Test func restoreAndBackupThroughASymbolicLinkReplaceTheFileItNames() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db1.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", path]).status == 0)
        let backup = directory.path("b1.sqlite")
        #expect(try run(Paths.cratedBinary, ["backup", backup, "--database", path]).status == 0)
        #expect(try run(Paths.cratedBinary, ["user", "add", "later", "--database", path]).status == 0)
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "db1.sqlite")

        let restored = try run(Paths.cratedBinary, ["restore", backup, "--database", link])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "db1.sqlite")
        #expect(try Self.strings(path, "SELECT name FROM user WHERE name = 'later'") == [])

        let backupLink = directory.path("latest.sqlite")
        try FileManager.default.createSymbolicLink(atPath: backupLink, withDestinationPath: "b1.sqlite")
        #expect(try run(Paths.cratedBinary, ["user", "add", "second", "--database", path]).status == 0)
        let backedUp = try run(Paths.cratedBinary, ["backup", backupLink, "--database", path])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: backupLink) == "b1.sqlite")
        #expect(try Self.strings(backup, "SELECT name FROM user WHERE name = 'second'") == ["second"])
    }

    /// The database holds password and token hashes: a restore keeps the owner and permissions of
    /// the file it replaces, and a new backup is readable by its owner only (one written over
    /// another keeps that one's permissions).
    @Test func restoreKeepsTheDatabasesOwnerAndPermissionsAndBackupsArePrivate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", path]).status == 0)
        let backup = directory.path("backup.sqlite")
        let backedUp = try run(Paths.cratedBinary, ["backup", backup, "--database", path])
        #expect(backedUp.status == 0, "\(backedUp.stderr)")
        #expect(try Self.permissions(backup) == 0o600)

        let shared = directory.path("shared.sqlite")
        #expect(FileManager.default.createFile(atPath: shared, contents: nil, attributes: [.posixPermissions: 0o640]))
        #expect(try run(Paths.cratedBinary, ["backup", shared, "--database", path]).status == 0)
        #expect(try Self.permissions(shared) == 0o640)

        // As root the file is given to `nobody`, as a service account's database would be.
        let owner = geteuid() == 0 ? 65534 : Int(geteuid())
        try FileManager.default.setAttributes([.posixPermissions: 0o600, .ownerAccountID: owner, .groupOwnerAccountID: owner], ofItemAtPath: path)
        let restored = try run(Paths.cratedBinary, ["restore", backup, "--database", path])
        #expect(restored.status == 0, "\(restored.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(try Self.permissions(path) == 0o600)
        #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == owner)
        #expect((attributes[.groupOwnerAccountID] as? NSNumber)?.intValue == owner)
    }

    static func permissions(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    /// A running `crated serve` has the database open: restore refuses, names the reason, and the
    /// database is untouched; once serve has stopped, the same restore goes through.
    @Test func restoreRefusesWhileServeRuns() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", path]).status == 0)
        let backup = directory.path("backup.sqlite")
        #expect(try run(Paths.cratedBinary, ["backup", backup, "--database", path]).status == 0)

        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        serve.arguments = ["serve", "--database", path, "--port", "0"]
        serve.environment = ProcessInfo.processInfo.environment.merging(["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9"]) { $1 }
        let output = Pipe()
        serve.standardOutput = output
        serve.standardError = FileHandle.nullDevice
        try serve.run()
        defer { if serve.isRunning { kill(serve.processIdentifier, SIGKILL) } }
        let reader = ServeProcessTests.LineReader(output.fileHandleForReading)
        #expect(reader.waitFor { $0.contains("listening on http://127.0.0.1:") } != nil)

        let refused = try run(Paths.cratedBinary, ["restore", backup, "--database", path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("restore refused: the database \(path) is open in another process (is crated serve running?); stop it, then restore"))

        kill(serve.processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(30)
        while serve.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!serve.isRunning)
        let restored = try run(Paths.cratedBinary, ["restore", backup, "--database", path])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try Self.integrity(path) == ["ok"])
    }
}
