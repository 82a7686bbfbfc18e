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
}
