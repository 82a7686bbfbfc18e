import ArgumentParser
import CratedCore

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the database migrations this database lacks (every other command that opens it does this on start, except backup)."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        let database = try global.openDatabase(configuration)
        try database.close()
        let applied = database.migrationsAppliedAtOpen
        let latest = Migration.embedded.last?.fileName ?? "none"
        if applied.isEmpty {
            print("database \(configuration.databasePath) is at migration \(latest): nothing to apply")
        } else {
            print("database \(configuration.databasePath) is at migration \(latest): applied \(applied.count) of \(Migration.embedded.count)")
            for fileName in applied { print("  \(fileName)") }
        }
    }
}
