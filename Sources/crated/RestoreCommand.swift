import ArgumentParser
import CratedCore
import Foundation

struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the database with a backup (stop serve first).",
        discussion: """
            The backup must be a crated database that passes PRAGMA integrity_check and has no \
            migration this crated does not know. It is copied beside the database, migrated to this \
            crated's schema, synced, and renamed over the database in one step; the database it \
            replaces is kept beside it as <database>.before-restore (a later restore's as \
            <database>.before-restore-2, and so on: none is replaced). The \
            database must not be open in another process: restore refuses while serve runs.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The backup file (from crated backup).")
    var path: String

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        let database = configuration.databasePath
        let summary: BackupSummary
        do {
            summary = try AppDatabase.restore(backupAt: path, into: database)
        } catch let error as BackupError {
            throw CommandFailure("restore \(error.isRefusal ? "refused" : "failed"): \(error.description)")
        } catch let error as AtomicFileError {
            throw CommandFailure("restore failed: \(error.description)")
        } catch {
            throw CommandFailure("restore failed: \(error.localizedDescription)")
        }
        print("restored \(path) into \(database)")
        print(BackupCommand.describe(summary))
        if !summary.migrationsApplied.isEmpty {
            print("  migrated          \(summary.migrationsApplied.joined(separator: ", "))")
        }
        if let previous = summary.previousDatabase {
            print("  replaced          kept as \(previous) (restore it to undo this; remove it once you are sure)")
        }
    }
}
