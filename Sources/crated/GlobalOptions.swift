import ArgumentParser
import Configuration
import CratedCore
import Foundation

/// The options every command takes: where the database and the configuration file are.
struct GlobalOptions: ParsableArguments {
    @Option(help: "The SQLite database file (default: database.path of the configuration).")
    var database: String?

    @Option(help: "A JSON configuration file layered over the built-in defaults (also CRATED_CONFIG).")
    var config: String?

    /// The configuration with these flags, and any the command adds, over environment, file and defaults.
    func loadConfiguration(_ overrides: CratedConfiguration.Overrides = [:]) async throws -> CratedConfiguration {
        var values = overrides
        if let database { values["database.path"] = ConfigValue(.string(database), isSecret: false) }
        do {
            return try await CratedConfiguration.load(overrides: values, configFile: config)
        } catch let error as ConfigurationError {
            throw CommandFailure(error.description)
        } catch {
            throw CommandFailure("configuration: \(error)")
        }
    }

    /// Opens the database for a command that only reads it or changes what is in it: a mistyped
    /// path is refused rather than made into a new, empty database.
    func openExistingDatabase(_ configuration: CratedConfiguration) throws -> AppDatabase {
        let path = configuration.databasePath
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("there is no database at \(path); `crated import` or `crated serve` makes one (or name another with --database)")
        }
        return try openDatabase(configuration)
    }

    /// Refuses the command while `crated serve` runs on the configured database: `reason` follows
    /// "crated serve (pid N) is running on PATH" and says what to do instead.
    func refuseWhileServing(_ configuration: CratedConfiguration, _ reason: String) throws {
        let serving = ServeLock.holder(databasePath: configuration.databasePath)
        guard serving.held else { return }
        throw CommandFailure("crated serve\(serving.pid.map { " (pid \($0))" } ?? "") is running on \(configuration.databasePath)\(reason)")
    }

    /// Opens the database, creating it if there is none: for the commands that make one. A command
    /// closes it when done (`AppDatabase.close`), which leaves no `-wal` and `-shm` files behind.
    /// A missing folder is not made: on a data disk not mounted yet (at boot, or for a nightly
    /// import), a new database beneath the mount point would be written, and later served, unseen.
    func openDatabase(_ configuration: CratedConfiguration) throws -> AppDatabase {
        let folder = URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: folder) {
            throw CommandFailure("the folder of the database, \(folder), does not exist (is its disk mounted?); create it first, or name another database with --database")
        }
        do {
            return try AppDatabase.open(path: configuration.databasePath, busyTimeoutMs: configuration.databaseBusyTimeoutMs)
        } catch let error as CustomStringConvertible & Error {
            throw CommandFailure(error.description)
        }
    }
}

/// A failure to report in one line on standard error, with a non-zero exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
