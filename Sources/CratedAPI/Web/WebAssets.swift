import CompressNIO
import Crypto
import Foundation
import Hummingbird
import NIOCore

/// The web client's files (`Resources/web/`, compiled into the binary), each served under a name
/// that carries a hash of its content (`app.1a2b3c4d5e.js`) so it can be cached for a year, and the
/// page (`index.html`) that names them, served uncached.
///
/// A file that names another (`import ... from './api.js'` in a module, `/assets/app.css` in the
/// page) is served naming the other's hashed name, and its own hash covers that text: a change to
/// any module changes the names of every file that leads to it, so no browser mixes old and new.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let name: String
        let hashedName: String
        let contentType: String
        let body: ByteBuffer
        /// The body gzipped once, for a browser that accepts it: the files are most of a first
        /// visit's bytes, and text a third of its size or less gzipped.
        let gzipped: ByteBuffer?
        let text: String
    }

    /// By hashed name.
    let assets: [String: Asset]
    /// Logical name (`app.js`) to hashed name.
    let hashedNames: [String: String]
    /// The page, with every asset named by its hashed name.
    let page: String
    let gzippedPage: ByteBuffer?
    /// References that could not be given a hashed name (a cycle of imports): empty unless the
    /// files have a bug; a test holds it empty.
    let unresolved: [String]

    static let shared = WebAssets(files: EmbeddedResources.files.filter { $0.name.hasPrefix("web/") }
        .map { (String($0.name.dropFirst("web/".count)), $0.text) })

    static let pageName = "index.html"

    init(files: [(name: String, text: String)]) {
        let texts = Dictionary(files.map { ($0.name, $0.text) }, uniquingKeysWith: { first, _ in first })
        let names = texts.keys.filter { $0 != Self.pageName }.sorted()
        var hashed: [String: String] = [:]
        var rewritten: [String: String] = [:]
        var visiting: Set<String> = []
        var unresolved: [String] = []

        func references(in text: String) -> [String] {
            names.filter { Self.patterns(for: $0).contains { text.contains($0) } }
        }
        func rewrite(_ text: String, from: String) -> String {
            var text = text
            for name in references(in: text) {
                guard let target = resolve(name) else {
                    unresolved.append("\(from) -> \(name)")
                    continue
                }
                for (pattern, replacement) in zip(Self.patterns(for: name), Self.patterns(for: target)) {
                    text = text.replacingOccurrences(of: pattern, with: replacement)
                }
            }
            return text
        }
        func resolve(_ name: String) -> String? {
            if let done = hashed[name] { return done }
            guard !visiting.contains(name), let text = texts[name] else { return nil }
            visiting.insert(name)
            let final = rewrite(text, from: name)
            visiting.remove(name)
            let digest = SHA256.hash(data: Data(final.utf8)).prefix(5).map { String(format: "%02x", $0) }.joined()
            let dot = name.lastIndex(of: ".") ?? name.endIndex
            let hashedName = "\(name[..<dot]).\(digest)\(name[dot...])"
            hashed[name] = hashedName
            rewritten[name] = final
            return hashedName
        }
        for name in names { _ = resolve(name) }
        let page = rewrite(texts[Self.pageName] ?? "", from: Self.pageName)

        var assets: [String: Asset] = [:]
        for name in names {
            guard let hashedName = hashed[name], let text = rewritten[name] else { continue }
            assets[hashedName] = Asset(name: name, hashedName: hashedName, contentType: Self.contentType(of: name),
                                       body: ByteBuffer(string: text), gzipped: Self.gzipped(text), text: text)
        }
        self.assets = assets
        self.hashedNames = hashed
        self.page = page
        self.gzippedPage = Self.gzipped(page)
        self.unresolved = unresolved
    }

    /// `text` gzipped at zlib's best level (once, at start), or nil when that saves nothing.
    static func gzipped(_ text: String) -> ByteBuffer? {
        var buffer = ByteBuffer(string: text)
        guard let compressed = try? buffer.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression))),
              compressed.readableBytes < text.utf8.count else { return nil }
        return compressed
    }

    /// How one file names another, in the forms the files use: quoted relative module paths and
    /// absolute asset paths.
    static func patterns(for name: String) -> [String] {
        ["'./\(name)'", "\"./\(name)\"", "/assets/\(name)\""]
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "webmanifest": "application/manifest+json"
        case "html": "text/html; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
