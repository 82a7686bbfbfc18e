import ArgumentParser
import CratedArtwork
import CratedCore
import Foundation
import Logging

struct ArtworkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "artwork",
        abstract: "Look after the covers crated keeps: what is on disk, and keeping it within its budget.",
        subcommands: [Status.self, Prune.self]
    )

    static func service(database: AppDatabase, configuration: CratedConfiguration) throws -> ArtworkService {
        var logger = Logger(label: "crated.artwork")
        logger.logLevel = .warning
        do {
            return try ArtworkService(database: database, configuration: configuration, logger: logger)
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Covers by state, and the bytes their files take against artwork.maxBytes.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let configuration = try await global.loadConfiguration()
            let database = try global.openExistingDatabase(configuration)
            defer { try? database.close() }
            let files = ArtworkFiles(root: configuration.artworkDirectoryPath)
            // Status reports a directory it cannot write rather than failing on it, and makes nothing.
            let problem: String?
            do {
                try files.check()
                problem = nil
            } catch {
                problem = error.description
            }
            let counts = try database.artworkCounts()
            let usage = try database.artworkDiskUsage()
            print("""
                Artwork in \(files.root)
                  covers stored     \(counts.stored)
                  not fetched yet   \(counts.pending)
                  failed            \(counts.failed) (each tried again at its retry time)
                  unusable          \(counts.unusable) of the failed (the host has no usable image: shown as no cover)
                  evicted           \(counts.evicted) (fetched again when asked for)
                  originals         \(usage.originals) files, \(Self.size(usage.originalBytes))
                  variants          \(usage.variants) files, \(Self.size(usage.variantBytes))
                  budget            \(Self.size(usage.totalBytes)) of \(Self.size(configuration.artworkMaxBytes)) (\(usage.totalBytes * 100 / max(configuration.artworkMaxBytes, 1))%)
                """)
            if let problem { throw CommandFailure(problem) }
        }

        static func size(_ bytes: Int) -> String {
            bytes < 1 << 20 ? "\(bytes / 1024) KiB" : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evict least recently used covers down to 90% of artwork.maxBytes (variants first), and remove files the database does not know.")

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Evict down to this many bytes instead.", valueName: "bytes"))
        var target: Int?

        func validate() throws {
            if let target, target < 0 { throw ValidationError("--target must not be negative") }
        }

        func run() async throws {
            let configuration = try await global.loadConfiguration()
            let database = try global.openExistingDatabase(configuration)
            defer { try? database.close() }
            let service = try ArtworkCommand.service(database: database, configuration: configuration)
            let report = try await service.prune(target: target, sweep: true)
            print("""
                Pruned \(service.files.root)
                  variants removed  \(report.variantsRemoved)
                  originals removed \(report.originalsRemoved)
                  freed             \(Status.size(report.bytesFreed))
                  stray files       \(report.strayFilesRemoved)
                """)
        }
    }
}
