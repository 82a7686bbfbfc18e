import ArgumentParser
import CratedCore
import Foundation

extension TokenScope: ExpressibleByArgument {}

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Manage API tokens (stored hashed; shown once, when created).",
        subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token for a user and print it once.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The user the token acts for.") var user: String
        @Option(help: "read or write.") var scope: TokenScope = .write
        @Option(name: .customLong("name"), help: "A label to tell the token apart: one line of 1 to 100 characters, as `token list` prints it.") var label: String?
        @Option(help: "Days until the token stops opening the API (1 to 36500); without it, it lasts until revoked.")
        var expiresInDays: Int?

        func validate() throws {
            if let expiresInDays, !(1...36_500).contains(expiresInDays) {
                throw ValidationError("--expires-in-days must be from 1 to 36500, not \(expiresInDays)")
            }
        }

        func run() async throws {
            // A new database has no user to give a token to: a mistyped path is refused, not made.
            let database = try global.openExistingDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
            do {
                let expiresAt = expiresInDays.map { Date().addingTimeInterval(TimeInterval($0) * 24 * 3600) }
                let issued = try database.createToken(userName: user, scope: scope, label: label, expiresAt: expiresAt)
                print(issued.token)
            } catch let error as UserError {
                throw CommandFailure(error.description)
            } catch let error as TokenError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens (their prefixes, never the secrets).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this user's tokens.") var user: String?

        func run() async throws {
            let configuration = try await global.loadConfiguration()
            let database = try global.openExistingDatabase(configuration)
            defer { try? database.close() }
            let tokens = try database.tokens(userName: user)
            // On standard error, as `user list` says it has none: standard output stays the list, empty.
            guard !tokens.isEmpty else {
                FileHandleOutput.standardError(user.map { "no tokens for \($0)\n" } ?? "no tokens in \(configuration.databasePath)\n")
                return
            }
            print("PREFIX        USER          SCOPE  CREATED               LAST USED             EXPIRES               STATUS   LABEL")
            let now = Date()
            for (token, userName, sessionExpiresAt) in tokens {
                // An app's sign-in expires as it goes unused: its date moves with each use. A web
                // session's token ends with its session.
                let session = sessionExpiresAt.flatMap(Timestamp.date(from:))
                let end = [configuration.tokenExpiry.end(of: token)?.date, session].compactMap { $0 }.min()
                let status = token.revokedAt != nil ? "revoked" : end.map { $0 <= now } == true ? "expired" : "active"
                let columns = [
                    token.tokenPrefix.padding(toLength: 13, withPad: " ", startingAt: 0),
                    userName.padding(toLength: 13, withPad: " ", startingAt: 0),
                    token.scope.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0),
                    token.createdAt.padding(toLength: 21, withPad: " ", startingAt: 0),
                    (token.lastUsedAt ?? "never").padding(toLength: 21, withPad: " ", startingAt: 0),
                    (end.map { Timestamp.string(from: $0) } ?? "never").padding(toLength: 21, withPad: " ", startingAt: 0),
                    status.padding(toLength: 8, withPad: " ", startingAt: 0),
                    token.label ?? "",
                ]
                print(columns.joined(separator: " "))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by its prefix (see `token list`) or the token itself.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The token's prefix, or the whole token.") var token: String

        func run() async throws {
            let database = try global.openExistingDatabase(try await global.loadConfiguration())
            defer { try? database.close() }
            do {
                let revoked = try database.revokeToken(token)
                if revoked.wasActive {
                    print("revoked token \(revoked.token.tokenPrefix)")
                } else {
                    print("token \(revoked.token.tokenPrefix) was already revoked, at \(revoked.token.revokedAt ?? "an unknown time")")
                }
            } catch let error as TokenError {
                throw CommandFailure(error.description)
            }
        }
    }
}
