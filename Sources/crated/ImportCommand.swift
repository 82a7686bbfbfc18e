import ArgumentParser
import CratedCore
import CratedImport
import Foundation

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a Discogs collection export (CSV) into a user's collection.",
        discussion: """
            Importing the same file again changes nothing; a later export adds what is new. \
            Nothing is written unless every row is valid, or --skip-invalid is given.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The CSV file exported from Discogs (Collection > Export).")
    var file: String

    @Option(help: "The owner of the copies (created if missing, which the summary says). Default: the only user; with none, the default user; with several, required.")
    var user: String?

    @Flag(help: "Check the file and report what would change, without writing.")
    var dryRun = false

    @Flag(help: "Import the valid rows and list the invalid ones instead of refusing the file.")
    var skipInvalid = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func run() async throws {
        // Before the database is opened (see SQLiteProcess); this process does nothing but the import.
        SQLiteProcess.disableMemoryStatistics()
        let configuration = try await global.loadConfiguration()
        let database = try global.openDatabase(configuration)
        let options = ImportOptions(userName: user, dryRun: dryRun, skipInvalid: skipInvalid, defaultUserName: configuration.defaultUserName)
        let bar = ProgressBar.forStandardError()
        let summary: ImportSummary
        do {
            summary = try DiscogsImporter(database: database).importFile(at: file, options: options, progress: bar.map { bar in
                { @Sendable progress in bar.update(done: progress.bytesRead, total: progress.totalBytes, label: "\(progress.rowsRead) rows") }
            })
            bar?.finish()
        } catch let error as ImportError {
            bar?.finish()
            throw CommandFailure(error.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(Self.describe(summary))
        }
    }

    static func describe(_ s: ImportSummary) -> String {
        var lines = [
            "\(s.dryRun ? "Dry run: nothing was written. " : "")Imported \(s.file) for \(s.user)",
        ]
        if s.userCreated {
            lines.append(s.dryRun ? "  would create user '\(s.user)' (no user has that name)" : "  created user '\(s.user)' (no user had that name)")
        }
        lines += [
            "  rows read         \(s.rowsRead)",
            "  albums            \(s.albums) (\(s.albumsAdded) new to the catalogue)",
            "  artists           \(s.artists) (\(s.artistsAdded) new)",
            "  copies            \(s.copiesAdded) added, \(s.copiesUpdated) updated, \(s.copiesUnchanged) unchanged",
            "  crates            \(s.crates) (\(s.cratesAdded) new)",
        ]
        if !s.customFields.isEmpty { lines.append("  custom fields     \(s.customFields.joined(separator: ", "))") }
        if !s.skipped.isEmpty {
            lines.append("  skipped rows      \(s.skipped.count)")
            lines += s.skipped.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
