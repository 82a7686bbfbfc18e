import ArgumentParser
import CratedCore

@main
struct Crated: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crated",
        abstract: "A self-hosted server for a vinyl collection: import from Discogs, serve it to the app.",
        version: CratedVersion.current,
        subcommands: [ServeCommand.self, ImportCommand.self, SyncCommand.self, MigrateCommand.self, UserCommand.self, TokenCommand.self, ArtworkCommand.self, ExportCommand.self, BackupCommand.self, RestoreCommand.self]
    )
}
