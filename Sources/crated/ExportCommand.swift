import ArgumentParser
import CratedCore
import CratedImport
import Foundation

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a user's collection as a Discogs collection CSV or as JSON.",
        discussion: """
            discogs-csv is the file Discogs exports (Collection > Export), with a Collection <Field> \
            column for each custom field; importing it gives the same collection back. json holds \
            everything the user owns: copies, crates in their order, play history and the player. \
            The export is one committed state of the database, so it can run while serve does.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case discogsCSV = "discogs-csv"
        case json
    }

    @OptionGroup var global: GlobalOptions

    @Option(help: "The user whose collection to export. Default: the only user; with several, required.")
    var user: String?

    @Option(help: "discogs-csv or json.")
    var format: Format = .discogsCSV

    @Argument(help: "The file to write (replaced whole, only once complete); standard output when absent or -.")
    var out: String?

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        let database = try global.openExistingDatabase(configuration)
        defer { try? database.close() }
        let toFile = out.flatMap { $0 == "-" ? nil : $0 }
        let summary: ExportSummary
        do {
            if let toFile {
                summary = try writeFile(toFile, database: database)
            } else {
                summary = try write(database: database, to: BufferedOutput(handle: .standardOutput))
            }
        } catch let error as ExportError {
            throw CommandFailure(error.description)
        } catch let error as AtomicFileError {
            throw CommandFailure(error.description)
        } catch let error as OutputWriteError {
            throw CommandFailure("export failed: \(error.description)")
        }
        var report = "exported \(summary.copies) cop\(summary.copies == 1 ? "y" : "ies") and \(summary.crates) crate\(summary.crates == 1 ? "" : "s")"
        if format == .json { report += " and \(summary.plays) play\(summary.plays == 1 ? "" : "s")" }
        report += " of \(summary.user) as \(format.rawValue)"
        if let toFile { report += " to \(toFile)" }
        // Standard output may be the export itself: the report goes to standard error then.
        if toFile != nil { print(report) } else { FileHandle.standardError.write(Data((report + "\n").utf8)) }
        if summary.copiesWithoutReleaseId > 0 {
            FileHandle.standardError.write(Data("warning: \(summary.copiesWithoutReleaseId) copies were left out: their albums have no Discogs release id, which the CSV requires\n".utf8))
        }
    }

    private func write(database: AppDatabase, to output: BufferedOutput) throws -> ExportSummary {
        try database.withCollectionExport(userName: user) { export in
            switch format {
            case .discogsCSV: try DiscogsExportWriter.write(export, to: output)
            case .json: try ExportJSONWriter.write(export, to: output)
            }
        }
    }

    private static func isSQLiteDatabase(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }

    /// Writes beside `path` and renames over it once complete: a failed export leaves `path` as it was.
    private func writeFile(_ path: String, database: AppDatabase) throws -> ExportSummary {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure("cannot write the export to \(path): it is a directory")
        }
        if AtomicFile.isSameFile(path, database.writer.path) {
            throw CommandFailure("cannot write the export to \(path): it is the database itself")
        }
        // `export PATH` reads like `backup PATH`: a backup named by mistake is not written over.
        if Self.isSQLiteDatabase(path) {
            throw CommandFailure("cannot write the export to \(path): it is a SQLite database (a backup?), which an export does not replace; name another file")
        }
        // Through a symbolic link, the file it names is replaced, and the link stays, as backup does.
        let file = AtomicFile.resolved(path)
        AtomicFile.removeAbandonedTemporaryFiles(beside: file)
        let temporary = AtomicFile.temporaryPath(beside: file)
        // Private to its owner, like the database it comes from (notes, play history).
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw CommandFailure("cannot write the export to \(path): cannot create \(temporary) (\(String(cString: strerror(errno))))")
        }
        do {
            let summary = try write(database: database, to: BufferedOutput(handle: handle))
            try handle.synchronize()
            try handle.close()
            try AtomicFile.replace(file, with: temporary)
            return summary
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            switch error {
            case let error as ExportError: throw error
            case let error as OutputWriteError: throw CommandFailure("cannot write the export to \(path): \(error.reason)")
            default: throw CommandFailure("cannot write the export to \(path): \(error.localizedDescription)")
            }
        }
    }
}
