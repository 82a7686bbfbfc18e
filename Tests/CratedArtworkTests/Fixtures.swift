import CratedTestSupport
import Foundation

enum Fixtures {
    static func bytes(_ name: String) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
        return [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
