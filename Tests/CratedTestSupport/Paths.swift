import CratedCore
import Foundation
import Testing
import GRDB

public enum Paths {
    /// The package root, found from this file's location (Tests/CratedCoreTests/TestSupport.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Small fixtures of the project's own making.
    public static func ownFixture(_ name: String) -> String {
        packageRoot.appending(path: "Tests/Fixtures/\(name)").path
    }

    /// Real Discogs data: ../shared/fixtures/discogs beside the checkout, or `discogs` in the folder
    /// CRATED_SHARED_FIXTURES names; nil when neither is there.
    public static let sharedDiscogsDirectory: URL? = {
        var candidates = [packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs")]
        if let override = ProcessInfo.processInfo.environment["CRATED_SHARED_FIXTURES"] {
            candidates.insert(URL(fileURLWithPath: override).appending(path: "discogs"), at: 0)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
    }()

    public static var sharedFixturesPresent: Bool { sharedDiscogsDirectory != nil }

    /// The path of a real Discogs file, or nil (with a note) when shared/ is absent.
    public static func sharedFixture(_ name: String) -> String? {
        guard let directory = sharedDiscogsDirectory else {
            print("note: skipping checks on \(name): ../shared/fixtures/discogs is not beside the checkout")
            return nil
        }
        return directory.appending(path: name).path
    }

    /// The bytes of a real Discogs file; throws when shared/ is absent.
    public static func sharedDiscogs(_ name: String) throws -> [UInt8] {
        guard let directory = sharedDiscogsDirectory else { throw CocoaError(.fileNoSuchFile) }
        return Array(try Data(contentsOf: directory.appending(path: name)))
    }

    /// The `crated` executable built with the tests (it sits beside the test bundle).
    public static var cratedBinary: String {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appending(path: "crated").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return packageRoot.appending(path: ".build/debug/crated").path
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test wholly on the real Discogs files: skipped, and said so, when shared/ is absent.
    public static var needsSharedFixtures: Self {
        .enabled(if: Paths.sharedFixturesPresent, "shared/fixtures/discogs is absent: the tests on real Discogs files are skipped")
    }
}
