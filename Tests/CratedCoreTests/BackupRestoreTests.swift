@testable import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// `AppDatabase.backup` and `AppDatabase.restore` on databases in temporary folders.
@Suite struct BackupRestoreTests {
    /// A migrated database holding `users` users, enough pages for a backup of many steps.
    static func database(users: Int, in directory: TemporaryDirectory, name: String = "crated.sqlite",
                         migrations: [Migration] = Migration.embedded) throws -> (AppDatabase, String) {
        let path = directory.path(name)
        let database = try AppDatabase.open(path: path, migrations: migrations)
        try database.writeBlocking { db in
            for n in 0..<users {
                try db.execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2026-01-01T00:00:00Z')", arguments: ["before-\(n)"])
            }
        }
        return (database, path)
    }

    static func userNames(_ path: String) throws -> Set<String> {
        try DatabaseQueue(path: path).read { db in Set(try String.fetchAll(db, sql: "SELECT name FROM user")) }
    }

    static func integrity(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    // MARK: - Backup

    /// Another connection commits a write after each of the backup's first steps, each within its
    /// busy timeout: writers are not locked out while the backup runs. The copy is the database as
    /// it was when the backup began: every earlier write, none of those made during it.
    @Test func writersGoOnDuringABackupWhichCopiesTheDatabaseAsItWasWhenItBegan() throws {
        let directory = try TemporaryDirectory()
        let (_, path) = try Self.database(users: 3000, in: directory)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let writer = try DatabaseQueue(path: path, configuration: configuration)
        var writtenDuringBackup: [String] = []
        var failures: [String] = []
        var steps = 0
        let summary = try AppDatabase.backup(databaseAt: path, to: directory.path("backup.sqlite"), pagesPerStep: 1) { progress in
            steps += 1
            guard steps <= 25, progress.copiedPages < progress.totalPages else { return }
            do {
                try writer.write { db in
                    try db.execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2026-01-02T00:00:00Z')", arguments: ["during-\(steps)"])
                }
                writtenDuringBackup.append("during-\(steps)")
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.isEmpty)
        #expect(writtenDuringBackup.count == 25)
        #expect(steps > 25)
        let backedUp = try Self.userNames(directory.path("backup.sqlite"))
        #expect(backedUp == Set((0..<3000).map { "before-\($0)" }))
        #expect(try Self.userNames(path).isSuperset(of: writtenDuringBackup))
        #expect(try Self.integrity(directory.path("backup.sqlite")) == ["ok"])
        #expect(summary.users == 3000)
        #expect(summary.schemaVersion == Migration.embedded.compactMap(\.version).max())
        #expect(summary.bytes == Int64(try Self.bytes(directory.path("backup.sqlite")).count))
        // The backup stands alone: no WAL beside it, and its header says so.
        #expect(!FileManager.default.fileExists(atPath: directory.path("backup.sqlite-wal")))
        #expect(try Self.bytes(directory.path("backup.sqlite"))[18] == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".partial-") }.isEmpty)
    }

    @Test func aBackupRefusesTheDatabaseItselfAndWhatIsNotADatabase() throws {
        let directory = try TemporaryDirectory()
        let (_, path) = try Self.database(users: 1, in: directory)
        #expect(throws: BackupError.sameFile(path: path, database: path)) {
            try AppDatabase.backup(databaseAt: path, to: path)
        }
        let sameFileOtherSpelling = directory.url.appending(path: "sub/../crated.sqlite").path
        try FileManager.default.createDirectory(at: directory.url.appending(path: "sub"), withIntermediateDirectories: true)
        #expect(throws: BackupError.sameFile(path: sameFileOtherSpelling, database: path)) {
            try AppDatabase.backup(databaseAt: path, to: sameFileOtherSpelling)
        }
        #expect(throws: BackupError.noDatabase(path: directory.path("missing.sqlite"))) {
            try AppDatabase.backup(databaseAt: directory.path("missing.sqlite"), to: directory.path("b.sqlite"))
        }
        #expect(throws: BackupError.isADirectory(path: directory.path("sub"))) {
            try AppDatabase.backup(databaseAt: path, to: directory.path("sub"))
        }
        let notCrated = directory.path("other.sqlite")
        try DatabaseQueue(path: notCrated).write { db in try db.execute(sql: "CREATE TABLE notes (text)") }
        #expect(throws: BackupError.notCrated(path: notCrated, reason: "it has no schema_migration table (its tables: notes)")) {
            try AppDatabase.backup(databaseAt: notCrated, to: directory.path("b.sqlite"))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("b.sqlite")))
    }

    /// A folder that does not exist is most likely a backup disk not mounted: making it would put
    /// the backup on the disk beneath the mount point, unseen. Refused, for a restore's target too.
    @Test func aMissingFolderIsRefusedNotMade() throws {
        let directory = try TemporaryDirectory()
        let (_, path) = try Self.database(users: 1, in: directory)
        let unmounted = directory.path("mnt/backup")
        #expect(throws: BackupError.noFolder(path: unmounted)) {
            try AppDatabase.backup(databaseAt: path, to: unmounted + "/crated.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("mnt")))
        #expect(BackupError.noFolder(path: unmounted).description == "the folder \(unmounted) does not exist (is its disk mounted?); create it first")

        let backup = directory.path("backup.sqlite")
        try AppDatabase.backup(databaseAt: path, to: backup)
        #expect(throws: BackupError.noFolder(path: unmounted)) {
            try AppDatabase.restore(backupAt: backup, into: unmounted + "/crated.sqlite")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("mnt")))
    }

    /// A backup step that runs out of disk leaves the copy's connection without a message of its
    /// own ("not an error"): the error says what happened from its result code.
    @Test func aFullDiskIsSaidAsOne() {
        let full = AppDatabase.backupError(DatabaseError(resultCode: .SQLITE_FULL, message: "not an error"), path: "/mnt/b.sqlite")
        #expect(full == .diskFull(path: "/mnt/b.sqlite"))
        #expect(full.description == "no space left on the disk of /mnt/b.sqlite; nothing was replaced")
        #expect(!full.isRefusal)
        let io = AppDatabase.backupError(DatabaseError(resultCode: .SQLITE_IOERR, message: "not an error"), path: "/mnt/b.sqlite")
        #expect(io.description == "/mnt/b.sqlite: disk I/O error")
        let notADatabase = AppDatabase.backupError(DatabaseError(resultCode: .SQLITE_NOTADB, message: "file is not a database"), path: "/x")
        #expect(notADatabase == .notADatabase(path: "/x", reason: "file is not a database") && notADatabase.isRefusal)
    }

    // MARK: - Restore

    @Test func restoreReplacesTheDatabaseWithTheBackupAndLeavesNoWALOfTheOldOne() throws {
        let directory = try TemporaryDirectory()
        let (database, path) = try Self.database(users: 50, in: directory)
        let backup = directory.path("backup.sqlite")
        _ = try AppDatabase.backup(databaseAt: path, to: backup)
        let before = try DatabaseContents(database)
        _ = try database.addUser(named: "after the backup")
        // The daemon has stopped: this process's connections to the database are closed.
        try database.writer.close()

        let summary = try AppDatabase.restore(backupAt: backup, into: path)
        #expect(summary.users == 50 && summary.migrationsApplied.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
        let restored = try AppDatabase.open(path: path)
        #expect(try DatabaseContents(restored) == before)
        #expect(try restored.user(named: "after the backup") == nil)
        // The backup file is left as it was.
        #expect(try Self.integrity(backup) == ["ok"])
        // The database it replaced is kept whole, to undo a restore of the wrong backup with.
        #expect(summary.previousDatabase == path + ".before-restore")
        #expect(try Self.integrity(path + ".before-restore") == ["ok"])
        #expect(try Self.userNames(path + ".before-restore").contains("after the backup"))
        try restored.close()
        let undone = try AppDatabase.restore(backupAt: path + ".before-restore", into: path)
        #expect(undone.users == 51)
        #expect(try Self.userNames(path).contains("after the backup"))
        // The second restore keeps what it replaced beside the first's: neither state is lost.
        #expect(undone.previousDatabase == path + ".before-restore-2")
        #expect(try !Self.userNames(path + ".before-restore-2").contains("after the backup"))
        #expect(try Self.userNames(path + ".before-restore").contains("after the backup"))
    }

    /// A database file deleted while its `-wal` stayed: SQLite would replay that WAL into whatever file
    /// comes to have the name. Restore removes it first.
    @Test func restoreIntoAMissingDatabaseRemovesAnOrphanedWAL() throws {
        let directory = try TemporaryDirectory()
        let (database, path) = try Self.database(users: 5, in: directory)
        let backup = directory.path("backup.sqlite")
        _ = try AppDatabase.backup(databaseAt: path, to: backup)
        // Written to the WAL and not yet checkpointed: the WAL now holds pages of this file.
        try database.stopAutomaticCheckpoints()
        _ = try database.addUser(named: "only in the old WAL")
        let target = directory.path("restored.sqlite")
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: target + "-wal")

        _ = try AppDatabase.restore(backupAt: backup, into: target)
        #expect(!FileManager.default.fileExists(atPath: target + "-wal"))
        #expect(try Self.userNames(target) == Set((0..<5).map { "before-\($0)" }))
        #expect(try Self.integrity(target) == ["ok"])
    }

    @Test func restoreMigratesABackupFromAnOlderCrated() throws {
        let directory = try TemporaryDirectory()
        let older = Array(Migration.embedded.dropLast())
        let (database, path) = try Self.database(users: 3, in: directory, name: "old.sqlite", migrations: older)
        try database.writer.close()
        let target = directory.path("crated.sqlite")
        let summary = try AppDatabase.restore(backupAt: path, into: target)
        #expect(summary.migrationsApplied == [Migration.embedded.last!.fileName])
        #expect(summary.lastMigration == Migration.embedded.last!.fileName)
        #expect(try Self.userNames(target).count == 3)
    }

    @Test func restoreRefusesWhatIsNotACratedDatabaseAndLeavesTheTargetAsItWas() throws {
        let directory = try TemporaryDirectory()
        let (database, target) = try Self.database(users: 5, in: directory)
        try database.writer.close()
        let targetBefore = try Self.bytes(target)

        let text = try directory.write("notes.txt", "hello, this is not a database\n")
        #expect(throws: BackupError.notADatabase(path: text, reason: "it starts with 'hello, this is n', not SQLite's header")) {
            try AppDatabase.restore(backupAt: text, into: target)
        }
        // A binary file by its first bytes: a gzip'd backup, say.
        let gzip = directory.path("backup.sqlite.gz")
        try Data([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).write(to: URL(fileURLWithPath: gzip))
        #expect(throws: BackupError.notADatabase(path: gzip, reason: "it starts with the bytes 1f 8b 08 00 00 00 00 00, not SQLite's header")) {
            try AppDatabase.restore(backupAt: gzip, into: target)
        }
        let empty = try directory.write("empty.sqlite", "")
        #expect(throws: BackupError.notADatabase(path: empty, reason: "it is empty")) {
            try AppDatabase.restore(backupAt: empty, into: target)
        }
        let other = directory.path("other.sqlite")
        try DatabaseQueue(path: other).write { db in try db.execute(sql: "CREATE TABLE notes (text)") }
        #expect(throws: BackupError.notCrated(path: other, reason: "it has no schema_migration table (its tables: notes)")) {
            try AppDatabase.restore(backupAt: other, into: target)
        }
        let noMigrations = directory.path("no-migrations.sqlite")
        try DatabaseQueue(path: noMigrations).write { db in
            try db.execute(sql: "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, file_name TEXT, checksum TEXT, applied_at TEXT)")
        }
        #expect(throws: BackupError.notCrated(path: noMigrations, reason: "it records no applied migrations")) {
            try AppDatabase.restore(backupAt: noMigrations, into: target)
        }
        let otherMigrations = directory.path("other-migrations.sqlite")
        try DatabaseQueue(path: otherMigrations).write { db in
            try db.execute(sql: "CREATE TABLE schema_migration (version INTEGER PRIMARY KEY, applied_at TEXT)")
            try db.execute(sql: "INSERT INTO schema_migration VALUES (1, '2026-01-01')")
        }
        #expect(throws: BackupError.notCrated(path: otherMigrations, reason: "its schema_migration table is not crated's (it has no column file_name)")) {
            try AppDatabase.restore(backupAt: otherMigrations, into: target)
        }

        let newer = directory.path("newer.sqlite")
        _ = try AppDatabase.backup(databaseAt: target, to: newer)
        try DatabaseQueue(path: newer).write { db in
            try db.execute(sql: "INSERT INTO schema_migration VALUES (9999, '9999_from_the_future.sql', 'abc', '2030-01-01T00:00:00Z')")
        }
        #expect(throws: BackupError.newerSchema(path: newer, version: 9999, fileName: "9999_from_the_future.sql")) {
            try AppDatabase.restore(backupAt: newer, into: target)
        }
        let changed = directory.path("changed.sqlite")
        _ = try AppDatabase.backup(databaseAt: target, to: changed)
        try DatabaseQueue(path: changed).write { db in try db.execute(sql: "UPDATE schema_migration SET checksum = 'edited' WHERE version = 1") }
        #expect(throws: BackupError.changedMigration(path: changed, fileName: Migration.embedded[0].fileName)) {
            try AppDatabase.restore(backupAt: changed, into: target)
        }
        #expect(throws: BackupError.sameFile(path: target, database: target)) {
            try AppDatabase.restore(backupAt: target, into: target)
        }
        #expect(try Self.bytes(target) == targetBefore)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".partial-") }.isEmpty)
    }

    /// A backup whose index pages were overwritten: SQLite's integrity check finds it, restore refuses.
    @Test func restoreRefusesABackupThatFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let (database, target) = try Self.database(users: 2000, in: directory)
        let damaged = directory.path("damaged.sqlite")
        _ = try AppDatabase.backup(databaseAt: target, to: damaged)
        try database.writer.close()
        let (rootPage, pageSize) = try DatabaseQueue(path: damaged).read { db in
            (try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_user_1'")!,
             try Int.fetchOne(db, sql: "PRAGMA page_size")!)
        }
        // The user-name index has several pages; its root's child pointers now lead nowhere sensible.
        var bytes = try Self.bytes(damaged)
        let start = (rootPage - 1) * pageSize + 12
        bytes.replaceSubrange(start..<start + 64, with: Data(repeating: 0xEE, count: 64))
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let targetBefore = try Self.bytes(target)

        do {
            _ = try AppDatabase.restore(backupAt: damaged, into: target)
            Issue.record("a damaged backup was restored")
        } catch let error as BackupError {
            switch error {
            case .failedIntegrityCheck(let path, let problems):
                #expect(path == damaged && !problems.isEmpty)
            case .sqlite(let path, _), .notADatabase(let path, _):
                // SQLite may stop the check itself with SQLITE_CORRUPT; still refused, naming the file.
                #expect(path == damaged)
            default:
                Issue.record("unexpected refusal: \(error)")
            }
        }
        #expect(try Self.bytes(target) == targetBefore)
    }

    /// Another connection has the database open (as `crated serve` has): restore refuses and changes
    /// nothing.
    @Test func restoreRefusesADatabaseThatIsOpenElsewhere() throws {
        let directory = try TemporaryDirectory()
        let (database, target) = try Self.database(users: 5, in: directory)
        let backup = directory.path("backup.sqlite")
        _ = try AppDatabase.backup(databaseAt: target, to: backup)
        _ = try database.addUser(named: "still here")
        _ = try database.users()
        #expect(throws: BackupError.databaseInUse(path: target)) {
            try AppDatabase.restore(backupAt: backup, into: target, busyTimeoutMs: 100)
        }
        #expect(try database.user(named: "still here") != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".partial-") }.isEmpty)
    }
}
