import Configuration
import Foundation
import SystemPackage

/// Everything crated reads from configuration, resolved once at start-up.
///
/// Precedence, highest first: command-line flags, `CRATED_*` environment variables, the file given by
/// `--config` (or `CRATED_CONFIG`), then the defaults of `Config/crated.json` compiled into the binary.
public struct CratedConfiguration: Sendable, Equatable {
    public var serverHost: String
    public var serverPort: Int
    /// Whether `serve` runs Swift concurrency's tasks on the server's event loops (see ServeCommand).
    public var serverEventLoopExecutor: Bool
    /// Seconds a connection may send nothing before the server closes it.
    public var serverIdleTimeoutSeconds: Int
    /// Open connections at most (see `ConnectionLimits` in CratedAPI).
    public var serverMaxConnections: Int
    /// API requests one user may have waiting for an answer (see `UserRequestLimitMiddleware`).
    public var serverMaxRequestsPerUser: Int
    /// Seconds a connection's request head may take to arrive.
    public var serverHeadTimeoutSeconds: Int
    /// Seconds a request body may take to arrive after its head.
    public var serverBodyTimeoutSeconds: Int
    /// Seconds an answer may wait on a client that has stopped reading it.
    public var serverWriteTimeoutSeconds: Int
    /// The reverse proxies whose `X-Forwarded-For` names the client; none by default.
    public var trustedProxies: TrustedProxies
    public var databasePath: String
    public var databaseBusyTimeoutMs: Int
    public var defaultUserName: String
    public var discogsBaseURL: String
    public var discogsToken: String
    public var discogsRequestsPerMinute: Int
    public var discogsUnauthenticatedRequestsPerMinute: Int
    public var userAgent: String
    /// Whether the daemon syncs with Discogs (its passes and `POST /v1/sync`); `crated sync` runs when asked.
    public var syncEnabled: Bool
    public var syncIntervalSeconds: Int
    public var syncStaleAfterDays: Int
    /// Where covers are kept; empty means `<database path without extension>-artwork` beside the
    /// database (`artworkDirectoryPath`).
    public var artworkDirectory: String
    /// The disk budget for covers: least recently used variants go first, then originals.
    public var artworkMaxBytes: Int
    /// Requests per minute to each image host.
    public var artworkRequestsPerMinute: Int
    /// A larger image from a host is refused.
    public var artworkMaxSourceBytes: Int
    /// Whether sync passes fetch the covers of the albums they sync (otherwise on first request only).
    public var artworkFetchDuringSync: Bool
    /// How many of the variant sizes most made sync makes of each cover it fetches (0: none ahead).
    public var artworkSizesAhead: Int
    /// Days a web sign-in lasts before the browser must sign in again.
    public var webSessionDays: Int
    /// Days a token an app signed in for may go unused before it stops (0: it never stops so).
    public var tokensSignInIdleDays: Int
    public var logLevel: String
    /// Whether `GET /metrics` answers and the instruments record (off: no route, nothing recorded).
    public var metricsEnabled: Bool
    /// The bearer token `GET /metrics` takes; empty means any valid API token.
    public var metricsToken: String

    /// Reads every value through one `ConfigReader`; a missing key falls through to the embedded defaults.
    public init(reader: ConfigReader) throws {
        // swift-configuration's own words for a value of the wrong kind name neither the variable
        // nor the file it came from: these do.
        func read<T>(_ key: String, _ kind: String, _ value: (ConfigKey) throws -> T) throws -> T {
            do {
                return try value(ConfigKey(key))
            } catch {
                throw ConfigurationError.invalidValue(
                    key: key, reason: "must be \(kind) (look at \(Self.environmentName(forKey: key)), the --config file and the command's flags)")
            }
        }
        func string(_ key: String) throws -> String { try read(key, "text") { try reader.requiredString(forKey: $0) } }
        func int(_ key: String) throws -> Int { try read(key, "a whole number") { try reader.requiredInt(forKey: $0) } }
        func bool(_ key: String) throws -> Bool { try read(key, "true or false") { try reader.requiredBool(forKey: $0) } }
        serverHost = try string("server.host")
        serverPort = try int("server.port")
        serverEventLoopExecutor = try bool("server.eventLoopExecutor")
        serverIdleTimeoutSeconds = try int("server.idleTimeoutSeconds")
        serverMaxConnections = try int("server.maxConnections")
        serverMaxRequestsPerUser = try int("server.maxRequestsPerUser")
        serverHeadTimeoutSeconds = try int("server.headTimeoutSeconds")
        serverBodyTimeoutSeconds = try int("server.bodyTimeoutSeconds")
        serverWriteTimeoutSeconds = try int("server.writeTimeoutSeconds")
        do {
            trustedProxies = try TrustedProxies(parsing: try string("server.trustedProxies"))
        } catch let error as TrustedProxiesError {
            throw ConfigurationError.invalidValue(key: "server.trustedProxies", reason: "must list proxy addresses or ranges: \(error)")
        }
        databasePath = try string("database.path")
        databaseBusyTimeoutMs = try int("database.busyTimeoutMs")
        defaultUserName = try string("import.defaultUser")
        discogsBaseURL = try string("discogs.baseURL")
        discogsToken = try string("discogs.token")
        discogsRequestsPerMinute = try int("discogs.requestsPerMinute")
        discogsUnauthenticatedRequestsPerMinute = try int("discogs.unauthenticatedRequestsPerMinute")
        userAgent = try string("discogs.userAgent")
        syncEnabled = try bool("sync.enabled")
        syncIntervalSeconds = try int("sync.intervalSeconds")
        syncStaleAfterDays = try int("sync.staleAfterDays")
        artworkDirectory = try string("artwork.directory")
        artworkMaxBytes = try int("artwork.maxBytes")
        artworkRequestsPerMinute = try int("artwork.requestsPerMinute")
        artworkMaxSourceBytes = try int("artwork.maxSourceBytes")
        artworkFetchDuringSync = try bool("artwork.fetchDuringSync")
        artworkSizesAhead = try int("artwork.sizesAhead")
        webSessionDays = try int("web.sessionDays")
        tokensSignInIdleDays = try int("tokens.signInIdleDays")
        logLevel = try string("log.level")
        metricsEnabled = try bool("metrics.enabled")
        metricsToken = try string("metrics.token")
        try validate()
    }

    private func validate() throws {
        guard !serverHost.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError.invalidValue(key: "server.host", reason: "must not be empty: an address to listen on, 127.0.0.1, or 0.0.0.0 for all")
        }
        guard let discogs = URL(string: discogsBaseURL), ["http", "https"].contains(discogs.scheme?.lowercased() ?? ""),
              !(discogs.host ?? "").isEmpty else {
            throw ConfigurationError.invalidValue(key: "discogs.baseURL", reason: "must be an http or https URL such as https://api.discogs.com, got '\(discogsBaseURL)'")
        }
        guard !userAgent.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError.invalidValue(key: "discogs.userAgent", reason: "must not be empty: Discogs asks every client to name itself")
        }
        guard (0...65535).contains(serverPort) else {
            throw ConfigurationError.invalidValue(key: "server.port", reason: "must be between 0 and 65535, got \(serverPort)")
        }
        guard (1...3600).contains(serverIdleTimeoutSeconds) else {
            throw ConfigurationError.invalidValue(key: "server.idleTimeoutSeconds", reason: "must be from 1 to 3600, got \(serverIdleTimeoutSeconds)")
        }
        for (key, value) in [("server.headTimeoutSeconds", serverHeadTimeoutSeconds), ("server.bodyTimeoutSeconds", serverBodyTimeoutSeconds),
                             ("server.writeTimeoutSeconds", serverWriteTimeoutSeconds)] {
            guard (1...3600).contains(value) else {
                throw ConfigurationError.invalidValue(key: key, reason: "must be from 1 to 3600, got \(value)")
            }
        }
        guard (1...1_000_000).contains(serverMaxConnections) else {
            throw ConfigurationError.invalidValue(key: "server.maxConnections", reason: "must be from 1 to 1000000, got \(serverMaxConnections)")
        }
        guard (1...10_000).contains(serverMaxRequestsPerUser) else {
            throw ConfigurationError.invalidValue(key: "server.maxRequestsPerUser", reason: "must be from 1 to 10000, got \(serverMaxRequestsPerUser)")
        }
        guard !databasePath.isEmpty else {
            throw ConfigurationError.invalidValue(key: "database.path", reason: "must not be empty")
        }
        guard databaseBusyTimeoutMs >= 0 else {
            throw ConfigurationError.invalidValue(key: "database.busyTimeoutMs", reason: "must not be negative")
        }
        guard !defaultUserName.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ConfigurationError.invalidValue(key: "import.defaultUser", reason: "must not be empty")
        }
        for (key, value) in [("discogs.requestsPerMinute", discogsRequestsPerMinute),
                             ("discogs.unauthenticatedRequestsPerMinute", discogsUnauthenticatedRequestsPerMinute)] {
            guard value > 0 else { throw ConfigurationError.invalidValue(key: key, reason: "must be positive, got \(value)") }
        }
        guard artworkMaxBytes >= 16 << 20 else {
            throw ConfigurationError.invalidValue(key: "artwork.maxBytes", reason: "must be at least 16777216 (16 MiB), got \(artworkMaxBytes)")
        }
        guard (1...6000).contains(artworkRequestsPerMinute) else {
            throw ConfigurationError.invalidValue(key: "artwork.requestsPerMinute", reason: "must be from 1 to 6000, got \(artworkRequestsPerMinute)")
        }
        guard (64 << 10...256 << 20).contains(artworkMaxSourceBytes) else {
            throw ConfigurationError.invalidValue(key: "artwork.maxSourceBytes", reason: "must be from 65536 to 268435456, got \(artworkMaxSourceBytes)")
        }
        guard (0...8).contains(artworkSizesAhead) else {
            throw ConfigurationError.invalidValue(key: "artwork.sizesAhead", reason: "must be from 0 to 8, got \(artworkSizesAhead)")
        }
        guard (1...365).contains(webSessionDays) else {
            throw ConfigurationError.invalidValue(key: "web.sessionDays", reason: "must be from 1 to 365, got \(webSessionDays)")
        }
        guard (0...3650).contains(tokensSignInIdleDays) else {
            throw ConfigurationError.invalidValue(key: "tokens.signInIdleDays", reason: "must be from 0 (never) to 3650, got \(tokensSignInIdleDays)")
        }
        guard (60...2_592_000).contains(syncIntervalSeconds) else {
            throw ConfigurationError.invalidValue(key: "sync.intervalSeconds", reason: "must be from 60 to 2592000 (30 days), got \(syncIntervalSeconds)")
        }
        guard (1...3650).contains(syncStaleAfterDays) else {
            throw ConfigurationError.invalidValue(key: "sync.staleAfterDays", reason: "must be from 1 to 3650, got \(syncStaleAfterDays)")
        }
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        guard levels.contains(logLevel.lowercased()) else {
            throw ConfigurationError.invalidValue(key: "log.level", reason: "must be one of \(levels.joined(separator: ", ")), got '\(logLevel)'")
        }
    }

    /// The artwork directory: `artwork.directory`, else beside the database (`crated.sqlite` keeps
    /// its covers in `crated-artwork/`).
    public var artworkDirectoryPath: String {
        guard artworkDirectory.isEmpty else { return artworkDirectory }
        let database = URL(fileURLWithPath: databasePath)
        return database.deletingPathExtension().path + "-artwork"
    }

    /// `web.sessionDays` in seconds.
    public var webSessionLifetime: TimeInterval { TimeInterval(webSessionDays) * 24 * 3600 }

    /// When tokens stop: an app's sign-in after `tokens.signInIdleDays` unused.
    public var tokenExpiry: TokenExpiry {
        TokenExpiry(signInIdleLimit: tokensSignInIdleDays == 0 ? nil : TimeInterval(tokensSignInIdleDays) * 24 * 3600)
    }

    /// The values that command-line flags set, as configuration keys (`server.port`, `database.path`, ...).
    public typealias Overrides = [String: ConfigValue]

    /// Loads the configuration in crated's precedence order.
    /// - Parameters:
    ///   - overrides: values from command-line flags.
    ///   - configFile: the `--config` path; when nil, `CRATED_CONFIG` from the environment, if set.
    ///   - environment: the process environment (tests pass their own).
    public static func load(
        overrides: Overrides = [:],
        configFile: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws -> CratedConfiguration {
        try checkEnvironmentNames(environment)
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "command line", values: Dictionary(uniqueKeysWithValues: overrides.map {
                (AbsoluteConfigKey(ConfigKey($0.key)), $0.value)
            })),
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific(["CRATED_DISCOGS_TOKEN", "CRATED_METRICS_TOKEN"])
            ).prefixKeys(with: "crated"),
        ]
        if let path = configFile ?? environment["CRATED_CONFIG"].flatMap({ $0.isEmpty ? nil : $0 }) {
            let (file, settings) = try await fileProvider(path: path)
            providers.append(InMemoryProvider(name: "paths in \(path)", values: filePaths(in: settings, resolvedAgainstFolderOf: path)))
            providers.append(file)
        }
        providers.append(try embeddedDefaults())
        return try CratedConfiguration(reader: ConfigReader(providers: providers))
    }

    /// The file's relative paths (`database.path`, `artwork.directory`) resolved against the file's
    /// own folder, whatever the working directory: a service manager starts crated in `/`. Paths
    /// given on the command line or in the environment stay relative to the working directory.
    private static func filePaths(in settings: [String: Any], resolvedAgainstFolderOf file: String) -> [AbsoluteConfigKey: ConfigValue] {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for key in ["database.path", "artwork.directory"] {
            let parts = key.split(separator: ".").map(String.init)
            guard let path = (settings[parts[0]] as? [String: Any])?[parts[1]] as? String,
                  !path.isEmpty, !path.hasPrefix("/") else { continue }
            values[AbsoluteConfigKey(parts)] = ConfigValue(.string(folder.appendingPathComponent(path).standardized.path), isSecret: false)
        }
        return values
    }

    private static func fileProvider(path: String) async throws -> (FileProvider<JSONSnapshot>, settings: [String: Any]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError.missingFile(path: path)
        }
        guard !isDirectory.boolValue else { throw ConfigurationError.notAFile(path: path) }
        guard FileManager.default.isReadableFile(atPath: path) else { throw ConfigurationError.unreadableFile(path: path) }
        let provider: FileProvider<JSONSnapshot>
        do {
            provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(path))
        } catch {
            throw ConfigurationError.malformedFile(path: path, reason: jsonProblem(error))
        }
        return (provider, try checkKeys(ofFile: path))
    }

    /// A key the defaults do not have is a mistake (`tokn` for `token`) that would otherwise be
    /// ignored without a word: it is refused, named. So is a key given twice in one section.
    /// So is a value where the defaults have a section, a section where they have a value, or null
    /// (which would quietly stand for the default).
    /// Returns the file's settings.
    private static func checkKeys(ofFile path: String) throws -> [String: Any] {
        let object: Any
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigurationError.malformedFile(path: path, reason: jsonProblem(error))
        }
        if let key = firstDuplicateKey(inJSON: data) {
            throw ConfigurationError.invalidValue(key: key, reason: "is given twice in \(path); keep one")
        }
        guard let settings = object as? [String: Any] else {
            throw ConfigurationError.malformedFile(path: path, reason: "its top level must be an object of sections (\"server\", \"database\", ...)")
        }
        try check(settings, against: try embeddedDefaultsJSON() as? [String: Any] ?? [:], under: [], path: path)
        return settings
    }

    /// The key an unknown one most likely means: one within two edits (`databse.path`), else the one
    /// key of the same name in another section (`port`, `serve.port`: `server.port`).
    static func keyMeant(by unknown: String) throws -> String? {
        let keys = try flattened(embeddedDefaultsJSON()).keys.sorted()
        if let near = nearest(to: unknown, among: keys), near.distance <= 2 { return near.name }
        let name = unknown.split(separator: ".").last.map(String.init) ?? unknown
        let sameName = keys.filter { $0.split(separator: ".").last.map(String.init) == name }
        return sameName.count == 1 ? sameName[0] : nil
    }

    private static func check(_ settings: [String: Any], against defaults: [String: Any], under section: [String], path: String) throws {
        for (name, value) in settings.sorted(by: { $0.key < $1.key }) {
            let key = (section + [name]).joined(separator: ".")
            guard let expected = defaults[name] else {
                // A misspelt section is named by its first setting, which says what was meant.
                let first = (value as? [String: Any]).flatMap { flattened($0).keys.sorted().first }
                let unknown = first.map { "\(key).\($0)" } ?? key
                throw ConfigurationError.unknownKey(key: unknown, path: path, meant: try keyMeant(by: unknown))
            }
            switch (expected, value) {
            case (let sectionDefaults as [String: Any], let given as [String: Any]):
                try check(given, against: sectionDefaults, under: section + [name], path: path)
            case (is [String: Any], _):
                throw ConfigurationError.invalidValue(key: key, reason: "must be a section, an object of settings, in \(path)")
            case (_, is [String: Any]), (_, is [Any]):
                throw ConfigurationError.invalidValue(key: key, reason: "must be a single value, not \(value is [Any] ? "a list" : "an object"), in \(path)")
            case (_, is NSNull):
                throw ConfigurationError.invalidValue(key: key, reason: "must not be null, in \(path) (leave it out for its default)")
            default:
                continue
            }
        }
    }

    /// The candidate fewest edits from `name` (the first by name among equals), with its distance.
    private static func nearest(to name: String, among candidates: some Sequence<String>) -> (name: String, distance: Int)? {
        candidates.map { (name: $0, distance: editDistance(Array($0.utf8), Array(name.utf8))) }
            .min { ($0.distance, $0.name) < ($1.distance, $1.name) }
    }

    /// The environment variables crated reads: `CRATED_CONFIG`, and each key of the defaults as
    /// `EnvironmentVariablesProvider` names it (`artwork.maxBytes` is `CRATED_ARTWORK_MAX_BYTES`).
    static func environmentNames() throws -> Set<String> {
        Set(try flattened(embeddedDefaultsJSON()).keys.map(environmentName(forKey:)) + ["CRATED_CONFIG"])
    }

    /// The provider's rule: components joined by `_`, a word boundary before each capital that follows
    /// a lower-case letter or digit (`baseURL` is `BASE_URL`), all upper case, behind `CRATED_`.
    static func environmentName(forKey key: String) -> String {
        var name = "CRATED_"
        var previous: Character?
        for character in key {
            if character == "." {
                name.append("_")
            } else {
                if character.isUppercase, let previous, previous.isLowercase || previous.isNumber { name.append("_") }
                name += character.uppercased()
            }
            previous = character
        }
        return name
    }

    /// A `CRATED_` variable that crated does not read but that is one of its names mistyped (within two
    /// edits, or the same but for underscores), or that is in a group's names (`CRATED_DATABASE`,
    /// `CRATED_SERVER_LISTEN`), would leave a setting at its default without a word, as a typo in the
    /// file would: it is refused, with the name meant. Other `CRATED_` variables, such as the test
    /// scripts' own, are none of crated's business. Names are matched in any case, as the provider
    /// reads them.
    private static func checkEnvironmentNames(_ environment: [String: String]) throws {
        let names = environment.keys.map { $0.uppercased() }.filter { $0.hasPrefix("CRATED_") }
        guard !names.isEmpty else { return }
        let known = try environmentNames()
        let groups = Set(try flattened(embeddedDefaultsJSON()).keys.map { environmentName(forKey: String($0.prefix { $0 != "." })) })
        for name in names.sorted() where !known.contains(name) {
            let withoutUnderscores = name.replacingOccurrences(of: "_", with: "")
            let sameButUnderscores = known.filter { $0.replacingOccurrences(of: "_", with: "") == withoutUnderscores }
            if let meant = nearest(to: name, among: sameButUnderscores) ?? nearest(to: name, among: known).flatMap({ $0.distance <= 2 ? $0 : nil }) {
                throw ConfigurationError.misspelledEnvironmentVariable(name: name, meant: meant.name)
            }
            if let group = groups.first(where: { name == $0 || name.hasPrefix($0 + "_") }),
               let meant = nearest(to: name, among: known.filter { $0.hasPrefix(group + "_") }) {
                throw ConfigurationError.misspelledEnvironmentVariable(name: name, meant: meant.name)
            }
        }
    }

    /// What Foundation says is wrong with the JSON ("Unexpected end of file"), without the wrapping
    /// of its error ("Error Domain=NSCocoaErrorDomain Code=3840 ... UserInfo={...}"); nothing when
    /// that is long, as a byte dump can be.
    static func jsonProblem(_ error: any Error) -> String {
        let foundationError = error as NSError
        guard foundationError.domain == NSCocoaErrorDomain else { return String(describing: error) }
        guard let text = foundationError.userInfo[NSDebugDescriptionErrorKey] as? String, text.count <= 160 else { return "" }
        return text
    }

    private static func embeddedDefaultsJSON() throws -> Any {
        try JSONSerialization.jsonObject(with: Data((EmbeddedResources.text(named: "Config/crated.json") ?? "{}").utf8))
    }

    /// A JSON object's leaves by dotted key (`server.port`).
    private static func flattened(_ object: Any) -> [String: Any] {
        var leaves: [String: Any] = [:]
        func flatten(_ value: Any, path: [String]) {
            if let dictionary = value as? [String: Any] {
                for (key, nested) in dictionary { flatten(nested, path: path + [key]) }
            } else {
                leaves[path.joined(separator: ".")] = value
            }
        }
        flatten(object, path: [])
        return leaves
    }

    /// `Config/crated.json` as it was at build time, flattened into dotted keys.
    static func embeddedDefaults() throws -> InMemoryProvider {
        let object = try JSONSerialization.jsonObject(with: Data((EmbeddedResources.text(named: "Config/crated.json") ?? "{}").utf8))
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func flatten(_ value: Any, path: [String]) {
            switch value {
            case let dictionary as [String: Any]:
                for (key, nested) in dictionary { flatten(nested, path: path + [key]) }
            case let string as String:
                values[AbsoluteConfigKey(path)] = ConfigValue(.string(string), isSecret: path.last == "token")
            case let number as NSNumber:
                // JSONSerialization gives booleans as NSNumber too, of C type char.
                if String(cString: number.objCType) == "c" {
                    values[AbsoluteConfigKey(path)] = ConfigValue(.bool(number.boolValue), isSecret: false)
                } else if number.doubleValue == number.doubleValue.rounded() {
                    values[AbsoluteConfigKey(path)] = ConfigValue(.int(number.intValue), isSecret: false)
                } else {
                    values[AbsoluteConfigKey(path)] = ConfigValue(.double(number.doubleValue), isSecret: false)
                }
            default:
                break
            }
        }
        flatten(object, path: [])
        return InMemoryProvider(name: "built-in defaults", values: values)
    }

    /// The built-in defaults alone: what tests and tools start from before overriding.
    public static func defaults() throws -> CratedConfiguration {
        try CratedConfiguration(reader: ConfigReader(provider: embeddedDefaults()))
    }
}

public enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    case missingFile(path: String)
    case notAFile(path: String)
    /// The file's permissions keep this user from reading it (crated run as another user).
    case unreadableFile(path: String)
    case malformedFile(path: String, reason: String)
    case invalidValue(key: String, reason: String)
    case unknownKey(key: String, path: String, meant: String? = nil)
    case misspelledEnvironmentVariable(name: String, meant: String)

    public var description: String {
        switch self {
        case .missingFile(let path): "configuration file not found: \(path)"
        case .notAFile(let path): "configuration path is a directory, not a JSON file: \(path)"
        case .unreadableFile(let path): "configuration file \(path) cannot be read by this user (check its permissions)"
        case .malformedFile(let path, let reason): "configuration file \(path) is not valid JSON\(reason.isEmpty ? "" : ": \(reason)")"
        case .invalidValue(let key, let reason): "configuration value '\(key)' \(reason)"
        case .unknownKey(let key, let path, let meant):
            "configuration file \(path) has an unknown key '\(key)'\(meant.map { "; did you mean '\($0)'?" } ?? "") (the keys are in the Configuration table of crated's README)"
        case .misspelledEnvironmentVariable(let name, let meant):
            "environment variable \(name) is not one crated reads; did you mean \(meant)? (the variables are in the Configuration table of crated's README)"
        }
    }
}
