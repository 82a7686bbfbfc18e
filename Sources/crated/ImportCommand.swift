import ArgumentParser
import CratedCore
import CratedImport
import Foundation

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a Discogs collection export (CSV) into a user's collection.",
        discussion: """
            Importing the same file again adds and changes nothing, except that a copy goes back to \
            the crate of the folder the file names (one put in another folder's crate in crated \
            leaves it); a later export adds what is new. \
            Nothing is written unless every row is valid, or --skip-invalid is given.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The CSV file exported from Discogs (Collection > Export); - reads standard input.")
    var file: String

    @Option(help: "The owner of the copies (created if missing, which the summary says; a user's name mistyped is refused). Default: the only user; with none, the default user; with several, required.")
    var user: String?

    @Flag(help: "Check the file and report what would change, without writing.")
    var dryRun = false

    @Flag(help: "Import the valid rows and list the invalid ones instead of refusing the file.")
    var skipInvalid = false

    @Flag(help: "Read slashed dates that could be either way (03/04/2021) month first, as a US spreadsheet writes them. Needed only when no date in the file tells (one such as 03/25/2021 does).")
    var monthFirst = false

    @Flag(help: "Read such dates day first (03/04/2021 as 3 April).")
    var dayFirst = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        if monthFirst && dayFirst { throw ValidationError("--month-first and --day-first cannot both be given") }
    }

    func run() async throws {
        // Before the database is opened (see SQLiteProcess); this process does nothing but the import.
        SQLiteProcess.disableMemoryStatistics()
        let configuration = try await global.loadConfiguration()
        // A dry run or a refused file writes nothing, so a database made for it is removed again:
        // otherwise a mistyped --database would be left as an empty database that the commands
        // which refuse a missing one (export, user, token) then take for the real one.
        let made = NewDatabaseFiles(path: configuration.databasePath)
        let summary: ImportSummary
        do {
            summary = try importFile(configuration)
        } catch {
            made?.remove()
            throw error
        }
        if summary.dryRun { made?.remove() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(Self.describe(summary, database: configuration.databasePath))
        }
        if let warning = Self.someoneElsesWarning(summary) { FileHandle.standardError.write(Data("crated: warning: \(warning)\n".utf8)) }
    }

    /// A file that shares no copy with the user's collection is likely another collector's, merged
    /// into this user's (a database of one user takes it without `--user`): said, with how to import
    /// it for another user.
    static func someoneElsesWarning(_ s: ImportSummary) -> String? {
        guard !s.userCreated, s.copiesNotInFile > 0, s.copiesAdded > 0, s.copiesUnchanged + s.copiesUpdated == 0 else { return nil }
        return "none of this file's \(s.copiesAdded) copies were \(s.user)'s already, and none of \(s.user)'s \(s.copiesNotInFile) are in it: "
            + "if it is another collector's, it \(s.dryRun ? "would be" : "was") added to \(s.user)'s collection (import it with --user NAME for another user)"
    }

    /// Imports `file` into the configured database; the database is closed when this returns.
    private func importFile(_ configuration: CratedConfiguration) throws -> ImportSummary {
        let source = try PipedFile(file)
        defer { source.remove() }
        let database = try global.openDatabase(configuration)
        defer { try? database.close() }
        let options = ImportOptions(userName: user, dryRun: dryRun, skipInvalid: skipInvalid, defaultUserName: configuration.defaultUserName,
                                    slashedDateOrder: monthFirst ? .monthFirst : dayFirst ? .dayFirst : nil)
        let bar = ProgressBar.forStandardError()
        defer { bar?.finish() }
        do {
            var summary = try DiscogsImporter(database: database).importFile(at: source.path, options: options, progress: bar.map { bar in
                { @Sendable progress in bar.update(done: progress.bytesRead, total: progress.totalBytes, label: "\(progress.rowsRead) rows") }
            })
            summary.file = source.name
            return summary
        } catch let error as ImportError {
            throw CommandFailure(error.description)
        }
    }

    /// Names the database: the default is relative to the working directory, and an import run
    /// from elsewhere makes a new one there.
    static func describe(_ s: ImportSummary, database: String) -> String {
        var lines = [
            s.dryRun ? "Dry run of \(s.file) for \(s.user) in \(database): nothing was written; importing it would do this"
                     : "Imported \(s.file) for \(s.user) into \(database)",
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
        if s.copiesNotInFile > 0 {
            lines.append("  not in this file  \(s.copiesNotInFile) \(s.copiesNotInFile == 1 ? "copy" : "copies") of \(s.user)'s, kept "
                         + "(a record sold on Discogs stays until it is removed in crated: Remove from collection on its album page, or DELETE /v1/copies/{id})")
        }
        if s.editsKept > 0 {
            lines.append("  edits kept        \(s.editsKept) \(s.editsKept == 1 ? "field" : "fields") changed in crated, which the file gives another value of: "
                         + "crated's kept (Discogs keeps its own)")
        }
        if !s.customFields.isEmpty { lines.append("  custom fields     \(s.customFields.joined(separator: ", "))") }
        if !s.ignoredColumns.isEmpty { lines.append("  columns ignored   \(s.ignoredColumns.joined(separator: ", "))") }
        if let dates = s.slashedDates {
            lines.append("  dates             slashed, read \(dates.order == .monthFirst ? "month" : "day") first ("
                         + "\(dates.decidedBy == .option ? "as the option says" : "as a date in the file that can only be so tells"))")
        }
        if !s.skipped.isEmpty {
            lines.append("  skipped rows      \(s.skipped.count)")
            lines += s.skipped.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

/// The file to import. A pipe (`-` for standard input, `/dev/stdin`, a shell's `<(...)`) is copied
/// into a temporary file first: the import reads its file twice (for the order of slashed dates) and
/// needs its size.
struct PipedFile {
    let path: String
    /// As the summary names it.
    let name: String
    private let isCopy: Bool

    init(_ argument: String) throws {
        var status = stat()
        let isPipe = argument == "-" || (stat(argument, &status) == 0 && (status.st_mode & S_IFMT == S_IFIFO || status.st_mode & S_IFMT == S_IFCHR))
        guard isPipe else {
            (path, name, isCopy) = (argument, argument, false)
            return
        }
        let input = argument == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: argument)
        guard let input else { throw CommandFailure("cannot read \(argument): \(String(cString: strerror(errno)))") }
        let copy = FileManager.default.temporaryDirectory.appending(path: "crated-import-\(getpid()).csv").path
        guard FileManager.default.createFile(atPath: copy, contents: nil, attributes: [.posixPermissions: 0o600]),
              let output = FileHandle(forWritingAtPath: copy) else {
            throw CommandFailure("cannot copy \(argument) to \(copy): \(String(cString: strerror(errno)))")
        }
        do {
            defer { try? output.close() }
            while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw CommandFailure("cannot copy \(argument == "-" ? "standard input" : argument) to \(copy): \(error.localizedDescription)")
        }
        (path, name, isCopy) = (copy, argument == "-" ? "standard input" : argument, true)
    }

    func remove() {
        if isCopy { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// The files of a database that does not exist yet, to remove when what made them wrote nothing;
/// nil when the database exists.
struct NewDatabaseFiles {
    let path: String

    init?(path: String) {
        guard !FileManager.default.fileExists(atPath: path) else { return nil }
        self.path = path
    }

    func remove() {
        for file in [path, path + "-wal", path + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
    }
}
