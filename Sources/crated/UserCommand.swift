import ArgumentParser
import CratedCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Manage users.",
        subcommands: [Add.self, List.self, Passwd.self, Link.self, Unlink.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a user.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let database = try global.openDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
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
            let configuration = try await global.loadConfiguration()
            let database = try global.openExistingDatabase(configuration)
            defer { try? database.close() }
            let users = try database.users()
            // On standard error: standard output stays the list, empty.
            if users.isEmpty { FileHandleOutput.standardError("no users in \(configuration.databasePath)\n") }
            let links = try database.discogsLinks()
            for user in users { print(user.name + (user.id.flatMap { links[$0] }.map { " (Discogs: \($0))" } ?? "")) }
        }
    }

    struct Passwd: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a user's password for signing in to the web client and apps.",
            discussion: """
                The password is read from a prompt on a terminal (asked twice, not echoed), otherwise \
                one line from standard input; never from an argument, which other users could see in \
                the process list. At least \(PasswordRules.minimumCharacters) characters and at most \
                \(PasswordRules.maximumBytes) bytes. Setting it signs the user's browsers out and revokes \
                the tokens their apps signed in for (POST /v1/tokens); tokens made with crated token \
                create stay.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let database = try global.openExistingDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
            guard try database.user(named: name) != nil else { throw CommandFailure(UserError.notFound(name).description) }
            let password: String
            if isatty(STDIN_FILENO) == 1 {
                let first = try Self.prompt("New password for \(name): ")
                let second = try Self.prompt("Again: ")
                guard first == second else { throw CommandFailure("the two passwords differ; nothing was changed") }
                password = first
            } else {
                guard let line = readLine(strippingNewline: true) else {
                    throw CommandFailure("no password on standard input; nothing was changed")
                }
                password = line
            }
            do {
                try database.setPassword(userName: name, password: password)
                print("set the password of \(name)")
            } catch let error as PasswordError {
                throw CommandFailure(error.description)
            } catch let error as UserError {
                throw CommandFailure(error.description)
            }
        }

        /// Reads one line from the terminal with echo off.
        static func prompt(_ text: String) throws -> String {
            FileHandleOutput.standardError(text)
            var saved = termios()
            let hasTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
            if hasTerminal {
                var quiet = saved
                quiet.c_lflag &= ~tcflag_t(ECHO)
                _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
            }
            defer {
                if hasTerminal { _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
                FileHandleOutput.standardError("\n")
            }
            guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no password given; nothing was changed") }
            return line
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Link a user to the Discogs account whose collection theirs is.",
            discussion: """
                The user may then bring that collection in step from the app (POST /v1/sync with \
                collectionUser), and only that one: such a pass reads it with the server's Discogs \
                token, which lists private collections and their owner's notes. A user has one link, \
                which this replaces; an account is linked to one user at most. `crated sync \
                --collection` on the server needs no link.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String
        @Argument(help: "The Discogs user name.") var discogsUser: String

        func run() async throws {
            let database = try global.openExistingDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
            do {
                let before = try database.user(named: name).flatMap { try database.linkedDiscogsUser(userId: $0.id!) }
                let user = try database.linkDiscogsUser(discogsUser, toUserNamed: name)
                let linked = AppDatabase.validDiscogsUser(discogsUser) ?? discogsUser
                // The link it replaces is said: that collection is no longer theirs to bring in step.
                let replaced = before.flatMap { $0.caseInsensitiveCompare(linked) == .orderedSame ? nil : $0 }
                print("linked \(user.name) to the Discogs user \(linked)" + (replaced.map { ", in place of \($0)" } ?? ""))
            } catch let error as DiscogsLinkError {
                throw CommandFailure(error.description)
            } catch let error as UserError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Unlink: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user's link to a Discogs account.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String

        func run() async throws {
            let database = try global.openExistingDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
            do {
                let (user, linked) = try database.unlinkDiscogsUser(ofUserNamed: name)
                print(linked.map { "unlinked \(user.name) from the Discogs user \($0)" } ?? "\(user.name) was linked to no Discogs user")
            } catch let error as UserError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user and everything they own.",
            discussion: """
                Their copies, crates, API tokens and web sign-ins, password, player and play history \
                go; the albums stay in the catalogue for other users. Without --yes nothing is removed: \
                the command says what would go. Refused while serve runs on the database, which keeps \
                the user's player and grids in memory.
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The user's name.") var name: String
        @Flag(help: "Remove the user; without it, only say what would be removed.") var yes = false

        func run() async throws {
            let configuration = try await global.loadConfiguration()
            try global.refuseWhileServing(configuration, "; stop it to remove a user")
            let database = try global.openExistingDatabase(configuration)
            defer { try? database.close() }
            do {
                guard yes else {
                    let (user, holdings) = try database.holdings(ofUserNamed: name)
                    throw CommandFailure("removing \(user.name) would remove \(Self.describe(holdings)); nothing was removed: "
                                         + "run it again with --yes to remove them")
                }
                let (user, removed) = try database.removeUser(named: name)
                print("removed user \(user.name) with \(Self.describe(removed))")
            } catch let error as UserError {
                throw CommandFailure(error.description)
            }
        }

        static func describe(_ holdings: UserHoldings) -> String {
            func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
            return [counted(holdings.copies, "copy", "copies"), counted(holdings.crates, "crate", "crates"),
                    counted(holdings.tokens, "API token", "API tokens"), counted(holdings.plays, "play", "plays")]
                .joined(separator: ", ") + " (their albums stay in the catalogue)"
        }
    }
}

/// Prompts and notes go to standard error, so standard output stays the command's result.
enum FileHandleOutput {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
