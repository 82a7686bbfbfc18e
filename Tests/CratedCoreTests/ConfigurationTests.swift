@testable import CratedCore
import Configuration
import CratedTestSupport
import Foundation
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsComeFromConfigCratedJSON() async throws {
        let configuration = try await CratedConfiguration.load(environment: [:])
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: Paths.packageRoot.appending(path: "Config/crated.json"))) as! [String: [String: Any]]
        #expect(configuration.serverHost == "127.0.0.1")
        #expect(configuration.serverPort == file["server"]!["port"] as! Int)
        #expect(configuration.serverEventLoopExecutor == file["server"]!["eventLoopExecutor"] as! Bool)
        #expect(configuration.discogsBaseURL == "https://api.discogs.com")
        #expect(configuration.discogsToken == "")
        #expect(configuration.databasePath == file["database"]!["path"] as! String)
        #expect(configuration == (try CratedConfiguration.defaults()))
    }

    @Test func flagsOverEnvironmentOverFileOverDefaults() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("crated.json", #"{"server": {"port": 7000, "host": "0.0.0.0"}, "discogs": {"token": "from-file"}}"#)
        let fromFile = try await CratedConfiguration.load(configFile: file, environment: [:])
        #expect(fromFile.serverPort == 7000)
        #expect(fromFile.serverHost == "0.0.0.0")
        #expect(fromFile.discogsToken == "from-file")
        #expect(fromFile.databasePath == "crated.sqlite")

        let environment = ["CRATED_SERVER_PORT": "7100", "CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9/", "CRATED_CONFIG": file]
        let fromEnvironment = try await CratedConfiguration.load(environment: environment)
        #expect(fromEnvironment.serverPort == 7100)
        #expect(fromEnvironment.serverHost == "0.0.0.0")
        #expect(fromEnvironment.discogsBaseURL == "http://127.0.0.1:9/")
        #expect(try await CratedConfiguration.load(environment: ["CRATED_SERVER_EVENT_LOOP_EXECUTOR": "false"]).serverEventLoopExecutor == false)
        #expect(try await CratedConfiguration.load(environment: ["CRATED_WEB_SESSION_DAYS": "7"]).webSessionDays == 7)

        let fromFlags = try await CratedConfiguration.load(overrides: ["server.port": .init(.int(7200), isSecret: false)], environment: environment)
        #expect(fromFlags.serverPort == 7200)
    }

    @Test func relativePathsInTheFileAreFromItsFolderAndOnTheCommandLineFromTheWorkingDirectory() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("crated.json", #"{"database": {"path": "data/crated.sqlite"}, "artwork": {"directory": "../covers"}}"#)
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()

        let fromFile = try await CratedConfiguration.load(configFile: file, environment: [:])
        #expect(fromFile.databasePath == folder.appending(path: "data/crated.sqlite").path)
        #expect(fromFile.artworkDirectoryPath == folder.deletingLastPathComponent().appending(path: "covers").path)

        let fromEnvironment = try await CratedConfiguration.load(configFile: file, environment: ["CRATED_DATABASE_PATH": "here.sqlite"])
        #expect(fromEnvironment.databasePath == "here.sqlite")
        let fromFlag = try await CratedConfiguration.load(
            overrides: ["database.path": .init(.string("there.sqlite"), isSecret: false)], configFile: file, environment: [:])
        #expect(fromFlag.databasePath == "there.sqlite")
        #expect(fromFlag.artworkDirectoryPath == fromFile.artworkDirectoryPath, "the file's artwork folder still holds")

        let absolute = try directory.write("absolute.json", #"{"database": {"path": "/srv/crated/crated.sqlite"}}"#)
        let fromAbsolute = try await CratedConfiguration.load(configFile: absolute, environment: [:])
        #expect(fromAbsolute.databasePath == "/srv/crated/crated.sqlite")
        #expect(fromAbsolute.artworkDirectoryPath == "/srv/crated/crated-artwork")
    }

    /// Root reads any file, so this runs only as another user.
    @Test(.enabled(if: getuid() != 0, "root can read a file of any permissions"))
    func aFileThisUserCannotReadIsSaidAsSuch() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("private.json", #"{"server": {"port": 7000}}"#)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file)
        await #expect(throws: ConfigurationError.unreadableFile(path: file)) {
            try await CratedConfiguration.load(configFile: file, environment: [:])
        }
    }

    @Test func aMissingOrMalformedFileIsAClearError() async throws {
        let directory = try TemporaryDirectory()
        await #expect(throws: ConfigurationError.missingFile(path: directory.path("nope.json"))) {
            try await CratedConfiguration.load(configFile: directory.path("nope.json"), environment: [:])
        }
        await #expect(throws: ConfigurationError.notAFile(path: directory.url.path)) {
            try await CratedConfiguration.load(configFile: directory.url.path, environment: [:])
        }
        let malformed = try directory.write("bad.json", #"{"server": {"port": 7000,"#)
        do {
            _ = try await CratedConfiguration.load(configFile: malformed, environment: [:])
            Issue.record("a malformed file was accepted")
        } catch let error as ConfigurationError {
            guard case .malformedFile(let path, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(path == malformed)
            // Foundation's words on what is wrong, without its error's wrapping.
            #expect(error.description.hasPrefix("configuration file \(malformed) is not valid JSON"), "\(error)")
            #expect(!error.description.contains("Error Domain") && !error.description.contains("UserInfo"), "\(error)")
        }
    }

    /// A key that is not crated's (a typo) is named instead of being ignored.
    @Test func anUnknownKeyInTheFileIsRefusedNamed() async throws {
        let directory = try TemporaryDirectory()
        let typo = try directory.write("typo.json", #"{"discogs": {"tokn": "s3cret"}, "server": {"port": 7000}}"#)
        await #expect(throws: ConfigurationError.unknownKey(key: "discogs.tokn", path: typo, meant: "discogs.token")) {
            try await CratedConfiguration.load(configFile: typo, environment: [:])
        }
        let section = try directory.write("section.json", #"{"serve": {"port": 7000}}"#)
        await #expect(throws: ConfigurationError.unknownKey(key: "serve.port", path: section, meant: "server.port")) {
            try await CratedConfiguration.load(configFile: section, environment: [:])
        }
        // An empty section, a value or a list where a section goes, a section or null where a value goes.
        let empty = try directory.write("empty.json", #"{"unknown": {}}"#)
        await #expect(throws: ConfigurationError.unknownKey(key: "unknown", path: empty)) {
            try await CratedConfiguration.load(configFile: empty, environment: [:])
        }
        for (text, key, reason) in [
            (#"{"server": 5}"#, "server", "must be a section, an object of settings"),
            (#"{"server": {"port": {"value": 80}}}"#, "server.port", "must be a single value, not an object"),
            (#"{"server": {"host": ["::1"]}}"#, "server.host", "must be a single value, not a list"),
            (#"{"server": {"port": null}}"#, "server.port", "must not be null"),
        ] {
            let file = try directory.write("shape.json", text)
            do {
                _ = try await CratedConfiguration.load(configFile: file, environment: [:])
                Issue.record("\(text) was accepted")
            } catch let error as ConfigurationError {
                guard case .invalidValue(let named, let said) = error else { Issue.record("\(text): \(error)"); continue }
                #expect(named == key && said.hasPrefix(reason), "\(text): \(error)")
            }
        }
        let notAnObject = try directory.write("list.json", "[1]")
        await #expect(throws: ConfigurationError.self) { try await CratedConfiguration.load(configFile: notAnObject, environment: [:]) }
        // A setting put at the top, or in the wrong section: the one key of its name is meant.
        let topLevel = try directory.write("top.json", #"{"port": 7000}"#)
        await #expect(throws: ConfigurationError.unknownKey(key: "port", path: topLevel, meant: "server.port")) {
            try await CratedConfiguration.load(configFile: topLevel, environment: [:])
        }
        let description = ConfigurationError.unknownKey(key: "discogs.tokn", path: typo, meant: "discogs.token").description
        #expect(description.contains("has an unknown key 'discogs.tokn'; did you mean 'discogs.token'? (the keys"))
        // An installed binary has no Config/crated.json beside it to look in.
        #expect(description.contains("the Configuration table of crated's README") && !description.contains("Config/crated.json"))
    }

    /// A parser keeps one of two values of a key without a word: a setting edited in one place could
    /// lose to a forgotten copy below it.
    @Test func aKeyGivenTwiceInTheFileIsRefusedNamed() async throws {
        let directory = try TemporaryDirectory()
        for (text, key) in [
            (#"{"server": {"port": 8081, "host": "0.0.0.0", "port": 9090}}"#, "server.port"),
            (#"{"server": {"port": 8081}, "log": {"level": "debug"}, "server": {"host": "::1"}}"#, "server"),
            (#"{"discogs": {"token": "a\"}{b", "userAgent": "x", "tok\u0065n": "c"}}"#, "discogs.token"),
        ] {
            let file = try directory.write("twice.json", text)
            await #expect(throws: ConfigurationError.invalidValue(key: key, reason: "is given twice in \(file); keep one"), "\(text)") {
                try await CratedConfiguration.load(configFile: file, environment: [:])
            }
        }
        // One name in two sections, and strings that look like keys, are no repeat.
        let fine = try directory.write("fine.json", #"{"server": {"host": "::1"}, "artwork": {"directory": "host\":"}, "metrics": {"token": "\"token\": 1"}, "discogs": {"token": "t"}}"#)
        let folder = URL(fileURLWithPath: fine).deletingLastPathComponent()
        #expect(try await CratedConfiguration.load(configFile: fine, environment: [:]).artworkDirectory == folder.appending(path: #"host":"#).path)
    }

    /// Objects in arrays have keys of their own; a string that holds a backslash before its closing
    /// quote ends there.
    @Test func duplicateKeysAreFoundWhereverTheObjectIs() {
        func first(_ text: String) -> String? { firstDuplicateKey(inJSON: Data(text.utf8)) }
        #expect(first(#"{"a": [{"x": 1}, {"x": 2}], "b": {"x": 3}}"#) == nil)
        #expect(first(#"{"a": [{"x": 1, "y": [1, {"z": 0, "z": 1}]}]}"#) == "a.y.z")
        #expect(first(#"{"a": "back\\", "b": 1, "a": 2}"#) == "a")
        #expect(first(#"{"a": {"b": {"c": 1}}, "d": {"b": 2}}"#) == nil)
        #expect(first(#"{"a": {"b": {"c": 1, "c": 2}}}"#) == "a.b.c")
    }

    /// A mistyped `CRATED_` variable is refused with the name meant; variables that are no near miss
    /// (the test scripts' own) are left alone.
    @Test func aMistypedEnvironmentVariableIsRefusedWithTheNameMeant() async throws {
        let names = try CratedConfiguration.environmentNames()
        // As README's Configuration table names them, and as the provider reads them.
        for name in ["CRATED_DISCOGS_BASE_URL", "CRATED_SERVER_EVENT_LOOP_EXECUTOR", "CRATED_DATABASE_BUSY_TIMEOUT_MS",
                     "CRATED_ARTWORK_MAX_SOURCE_BYTES", "CRATED_DISCOGS_UNAUTHENTICATED_REQUESTS_PER_MINUTE", "CRATED_CONFIG"] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(try await CratedConfiguration.load(environment: ["CRATED_ARTWORK_MAX_BYTES": "20000000"]).artworkMaxBytes == 20_000_000)

        for (typo, meant) in [("CRATED_ARTWORK_MAXBYTES", "CRATED_ARTWORK_MAX_BYTES"), ("CRATED_DISCOG_TOKEN", "CRATED_DISCOGS_TOKEN"),
                              ("crated_server_prot", "CRATED_SERVER_PORT"), ("CRATED_CONFG", "CRATED_CONFIG")] {
            await #expect(throws: ConfigurationError.misspelledEnvironmentVariable(name: typo.uppercased(), meant: meant)) {
                try await CratedConfiguration.load(environment: [typo: "1"])
            }
        }
        let description = ConfigurationError.misspelledEnvironmentVariable(name: "CRATED_DISCOG_TOKEN", meant: "CRATED_DISCOGS_TOKEN").description
        #expect(description == "environment variable CRATED_DISCOG_TOKEN is not one crated reads; did you mean CRATED_DISCOGS_TOKEN? "
                               + "(the variables are in the Configuration table of crated's README)")

        // A name in a group's names that is none of them: the group's nearest is meant.
        for (name, meant) in [("CRATED_DATABASE", "CRATED_DATABASE_PATH"), ("CRATED_SERVER_LISTEN_PORT", "CRATED_SERVER_PORT"),
                              ("crated_artwork_dir", "CRATED_ARTWORK_DIRECTORY")] {
            await #expect(throws: ConfigurationError.misspelledEnvironmentVariable(name: name.uppercased(), meant: meant)) {
                try await CratedConfiguration.load(environment: [name: "1"])
            }
        }

        let scripts = ["CRATED_URL", "CRATED_TOKEN", "CRATED_READ_TOKEN", "CRATED_OTHER_TOKEN", "CRATED_PASSWORD", "CRATED_SHARED_FIXTURES",
                       "CRATED_TEST_ARTEFACTS", "CRATED_DEV_DATA", "CRATED_BINARY", "CRATED_CCURL_SHIM_H", "CRATED_SERVER_PORT", "CRATEDX"]
        let configuration = try await CratedConfiguration.load(environment: Dictionary(uniqueKeysWithValues: scripts.map { ($0, "7300") }))
        #expect(configuration.serverPort == 7300)
    }

    @Test func outOfRangeValuesAreRefused() async throws {
        // Each of the two request budgets is named for itself.
        let directory = try TemporaryDirectory()
        let unauthenticated = try directory.write("budget.json", #"{"discogs":{"unauthenticatedRequestsPerMinute":-3}}"#)
        await #expect(throws: ConfigurationError.invalidValue(key: "discogs.unauthenticatedRequestsPerMinute", reason: "must be positive, got -3")) {
            try await CratedConfiguration.load(configFile: unauthenticated, environment: [:])
        }
        await #expect(throws: ConfigurationError.invalidValue(key: "discogs.requestsPerMinute", reason: "must be positive, got 0")) {
            try await CratedConfiguration.load(environment: ["CRATED_DISCOGS_REQUESTS_PER_MINUTE": "0"])
        }
        await #expect(throws: ConfigurationError.invalidValue(key: "server.port", reason: "must be between 0 and 65535, got 70000")) {
            try await CratedConfiguration.load(environment: ["CRATED_SERVER_PORT": "70000"])
        }
        await #expect(throws: (any Error).self) {
            try await CratedConfiguration.load(environment: ["CRATED_SERVER_PORT": "eighty"])
        }
        do {
            _ = try await CratedConfiguration.load(environment: ["CRATED_SERVER_EVENT_LOOP_EXECUTOR": "maybe"])
            Issue.record("a switch that is neither true nor false was accepted")
        } catch {
            #expect(String(describing: error).contains("CRATED_SERVER_EVENT_LOOP_EXECUTOR"), "\(error)")
        }
        // A value of the wrong kind names its key and where it may have come from.
        let notANumber = ConfigurationError.invalidValue(
            key: "server.port", reason: "must be a whole number (look at CRATED_SERVER_PORT, the --config file and the command's flags)")
        await #expect(throws: notANumber) { try await CratedConfiguration.load(environment: ["CRATED_SERVER_PORT": "abc"]) }
        let portFolder = try TemporaryDirectory()
        let file = try portFolder.write("crated.json", #"{"server": {"port": "abc"}}"#)
        await #expect(throws: notANumber) { try await CratedConfiguration.load(configFile: file, environment: [:]) }
        // The connection limits: each value out of range is named.
        for (variable, key, value, reason) in [
            ("CRATED_SERVER_HEAD_TIMEOUT_SECONDS", "server.headTimeoutSeconds", "0", "must be from 1 to 3600, got 0"),
            ("CRATED_SERVER_BODY_TIMEOUT_SECONDS", "server.bodyTimeoutSeconds", "3601", "must be from 1 to 3600, got 3601"),
            ("CRATED_SERVER_WRITE_TIMEOUT_SECONDS", "server.writeTimeoutSeconds", "0", "must be from 1 to 3600, got 0"),
            ("CRATED_SERVER_MAX_CONNECTIONS", "server.maxConnections", "0", "must be from 1 to 1000000, got 0"),
            ("CRATED_SERVER_MAX_REQUESTS_PER_USER", "server.maxRequestsPerUser", "0", "must be from 1 to 10000, got 0"),
            ("CRATED_ARTWORK_SIZES_AHEAD", "artwork.sizesAhead", "9", "must be from 0 to 8, got 9"),
            ("CRATED_ARTWORK_SIZES_AHEAD", "artwork.sizesAhead", "-1", "must be from 0 to 8, got -1"),
            ("CRATED_WEB_SESSION_DAYS", "web.sessionDays", "0", "must be from 1 to 365, got 0"),
            ("CRATED_WEB_SESSION_DAYS", "web.sessionDays", "366", "must be from 1 to 365, got 366"),
            ("CRATED_TOKENS_SIGN_IN_IDLE_DAYS", "tokens.signInIdleDays", "-1", "must be from 0 (never) to 3650, got -1"),
            ("CRATED_TOKENS_SIGN_IN_IDLE_DAYS", "tokens.signInIdleDays", "3651", "must be from 0 (never) to 3650, got 3651"),
            // Once silently clamped to a pass every second, or taken as they came.
            ("CRATED_SYNC_INTERVAL_SECONDS", "sync.intervalSeconds", "0", "must be from 60 to 2592000 (30 days), got 0"),
            ("CRATED_SYNC_INTERVAL_SECONDS", "sync.intervalSeconds", "-1", "must be from 60 to 2592000 (30 days), got -1"),
            ("CRATED_SYNC_STALE_AFTER_DAYS", "sync.staleAfterDays", "-1", "must be from 1 to 3650, got -1"),
            ("CRATED_LOG_LEVEL", "log.level", "loud",
             "must be one of trace, debug, info, notice, warning, error, critical, got 'loud'"),
            // Once taken, to fail later: at listen, or at every sync request.
            ("CRATED_SERVER_HOST", "server.host", " ", "must not be empty: an address to listen on, 127.0.0.1, or 0.0.0.0 for all"),
            ("CRATED_DISCOGS_BASE_URL", "discogs.baseURL", "notaurl", "must be an http or https URL such as https://api.discogs.com, got 'notaurl'"),
            ("CRATED_DISCOGS_BASE_URL", "discogs.baseURL", "ftp://api.discogs.com", "must be an http or https URL such as https://api.discogs.com, got 'ftp://api.discogs.com'"),
            ("CRATED_DISCOGS_USER_AGENT", "discogs.userAgent", " ", "must not be empty: Discogs asks every client to name itself"),
            ("CRATED_SERVER_TRUSTED_PROXIES", "server.trustedProxies", "127.0.0.1, proxy.lan",
             "must list proxy addresses or ranges: 'proxy.lan' is not an IPv4 or IPv6 address, nor a range such as 192.168.1.0/24"),
            ("CRATED_SERVER_TRUSTED_PROXIES", "server.trustedProxies", "10.0.0.0/33",
             "must list proxy addresses or ranges: '10.0.0.0/33' has a prefix length that is not from 0 to 32"),
        ] {
            await #expect(throws: ConfigurationError.invalidValue(key: key, reason: reason)) {
                try await CratedConfiguration.load(environment: [variable: value])
            }
        }
    }

    @Test func trustedProxiesAreReadFromTheEnvironment() async throws {
        #expect(try await CratedConfiguration.load(environment: [:]).trustedProxies.isEmpty)
        let configuration = try await CratedConfiguration.load(environment: ["CRATED_SERVER_TRUSTED_PROXIES": "10.0.0.0/8 ::1"])
        #expect(configuration.trustedProxies.contains("10.1.2.3") && configuration.trustedProxies.contains("::1"))
        #expect(!configuration.trustedProxies.contains("192.0.2.1"))
    }
}
