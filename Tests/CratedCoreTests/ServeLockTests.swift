import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct ServeLockTests {
    /// A database named through a symbolic link is the file the link names: its lock is that file's.
    @Test func aDatabaseByAnotherNameHasTheSameLock() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("db1.sqlite")
        _ = try directory.database("db1.sqlite")
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "db1.sqlite")

        let lock = try ServeLock.acquire(databasePath: database)
        #expect(ServeLock.path(forDatabase: link) == ServeLock.path(forDatabase: database))
        #expect(throws: ServeLockError.held(databasePath: link, pid: getpid())) { try ServeLock.acquire(databasePath: link) }
        #expect(ServeLock.holder(databasePath: link).held)
        withExtendedLifetime(lock) {}
    }

    /// A lock file that is a symbolic link is refused, not followed: the pid written would overwrite
    /// the file it names.
    @Test func aLockFileThatIsALinkIsNotFollowed() throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("x.sqlite")
        let victim = try directory.write("victim.txt", "precious")
        try FileManager.default.createSymbolicLink(atPath: ServeLock.path(forDatabase: database), withDestinationPath: victim)

        #expect(throws: ServeLockError.self) { try ServeLock.acquire(databasePath: database) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    /// The database and its WAL are private to their owner, as backups are: they hold password
    /// hashes, notes and CSRF tokens.
    @Test func aNewDatabaseIsPrivateToItsOwner() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database("private.sqlite")
        try database.writer.write { db in try db.execute(sql: "CREATE TABLE scratch (x)") }
        for path in [directory.path("private.sqlite"), directory.path("private.sqlite-wal")] {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(path): \(String(mode, radix: 8))")
        }
    }
}
