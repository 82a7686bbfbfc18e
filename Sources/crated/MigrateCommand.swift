import ArgumentParser
import CratedCore

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the database migrations this database lacks (every command does this on start)."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        try global.openDatabase(configuration).close()
        let applied = Migration.embedded.map(\.fileName)
        print("database \(configuration.databasePath) is at migration \(applied.last ?? "none") (\(applied.count) applied)")
    }
}
