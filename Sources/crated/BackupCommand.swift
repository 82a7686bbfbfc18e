import ArgumentParser
import CratedCore
import Foundation

struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database to a file, consistently, while serve runs and writes.",
        discussion: """
            The copy is the database as it was when the backup began (SQLite's online backup API, \
            inside one read transaction), so serve's readers and writers never wait for it. It is \
            written beside PATH, checked with PRAGMA integrity_check and renamed over PATH only when \
            complete: a backup that fails or is killed leaves the previous backup as it was. The \
            database is not migrated first.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The backup file to write (replaced only once the new copy is complete and checked).")
    var path: String

    @Option(help: "Database pages (4 KiB) copied per step.")
    var pagesPerStep: Int32 = 1024

    @Option(help: "Milliseconds to pause between steps, to spread a large backup's reads over time.")
    var pauseMs: Int = 0

    func validate() throws {
        guard pagesPerStep > 0 else { throw ValidationError("--pages-per-step must be at least 1") }
        guard pauseMs >= 0 else { throw ValidationError("--pause-ms cannot be negative") }
    }

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        let database = configuration.databasePath
        let bar = ProgressBar.forStandardError()
        let started = ContinuousClock.now
        let summary: BackupSummary
        do {
            summary = try AppDatabase.backup(
                databaseAt: database, to: path, pagesPerStep: pagesPerStep, pauseBetweenSteps: .milliseconds(pauseMs),
                busyTimeoutMs: configuration.databaseBusyTimeoutMs,
                progress: bar.map { bar in { step in bar.update(done: step.copiedPages, total: step.totalPages, label: "\(step.copiedPages) of \(step.totalPages) pages") } })
            bar?.finish()
        } catch let error as BackupError {
            bar?.finish()
            throw CommandFailure("backup failed: \(error.description)")
        } catch let error as AtomicFileError {
            bar?.finish()
            throw CommandFailure("backup failed: \(error.description)")
        } catch {
            bar?.finish()
            throw CommandFailure("backup failed: \(error.localizedDescription)")
        }
        let elapsed = (ContinuousClock.now - started).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        print("backed up \(database) to \(summary.path) in \(String(format: "%.1f", seconds)) s")
        print(Self.describe(summary))
    }

    static func describe(_ summary: BackupSummary) -> String {
        let megabytes = String(format: "%.1f", Double(summary.bytes) / 1_048_576)
        return """
              size              \(summary.bytes) bytes (\(megabytes) MiB, \(summary.pages) pages), integrity check ok
              schema version    \(summary.schemaVersion) (\(summary.lastMigration))
              contents          \(summary.users) user\(summary.users == 1 ? "" : "s"), \(summary.copies) copies, \(summary.albums) albums
            """
    }
}
