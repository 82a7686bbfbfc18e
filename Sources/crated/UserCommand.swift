import ArgumentParser
import CratedCore

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage users.",
        subcommands: [Add.self, List.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let database = try global.openDatabase(try await global.loadConfiguration())
            do {
                let user = try database.addUser(named: name)
                print("added user \(user.name)")
            } catch let error as UserError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let database = try global.openDatabase(try await global.loadConfiguration())
            for user in try database.users() { print(user.name) }
        }
    }
}
