#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CratedCore
import Foundation

/// Why the artwork directory cannot be used.
public enum ArtworkStorageError: Error, Equatable, CustomStringConvertible {
    case notWritable(path: String, reason: String)
    case diskFull(path: String)
    case io(path: String, reason: String)
    /// A file the database said was there is gone: evicted by a prune between the look and the read.
    case missing(path: String)

    public var isDiskFull: Bool {
        if case .diskFull = self { true } else { false }
    }

    public var description: String {
        switch self {
        case .notWritable(let path, let reason): "artwork directory \(path) cannot be written: \(reason)"
        case .diskFull(let path): "no space left on the device of \(path)"
        case .io(let path, let reason): "\(path): \(reason)"
        case .missing(let path): "\(path): no such file"
        }
    }
}

/// The artwork directory: originals named by their content hash, variants beside them, and `tmp/`
/// for files being written. A file appears under its name only once it is whole and on disk
/// (written to `tmp/`, synced, then renamed), so a killed process leaves nothing half-written that
/// could be served; `prepare()` clears what it left in `tmp/`. Files in `tmp/` are named
/// `<pid>.<uuid>`, so that `crated sync` or `crated artwork` starting beside `serve` clears only what
/// a process that has ended left, not the files `serve` is writing.
public struct ArtworkFiles: Sendable {
    public let root: String

    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    var originals: String { root + "/originals" }
    var variants: String { root + "/variants" }
    var temporary: String { root + "/tmp" }

    /// Creates the folders, proves a file can be written and removed, and clears `tmp/`.
    public func prepare() throws(ArtworkStorageError) {
        try checkParentExists()
        for folder in [root, originals, variants, temporary] {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .notWritable(path: root, reason: Self.whyNotMade(folder) ?? Self.reason(error))
            }
        }
        if let leftovers = try? FileManager.default.contentsOfDirectory(atPath: temporary) {
            for name in leftovers where !Self.mayBeBeingWritten(name) { unlink(temporary + "/" + name) }
        }
        try probeWrite()
    }

    /// What `prepare` would find wrong, found without making or removing anything (for `crated
    /// artwork status`): a folder not there yet is fine when it could be made.
    public func check() throws(ArtworkStorageError) {
        try checkParentExists()
        for folder in [root, originals, variants, temporary] {
            if let why = Self.whyNotMade(folder) { throw .notWritable(path: root, reason: why) }
        }
        // A full disk shows only in a write.
        if FileManager.default.fileExists(atPath: temporary) { try probeWrite() }
    }

    /// The directory is made where it should be, its folder not: a data disk not mounted yet would
    /// otherwise fill the disk beneath its mount point with covers, up to the budget.
    private func checkParentExists() throws(ArtworkStorageError) {
        let parent = (root as NSString).deletingLastPathComponent
        guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
        throw .notWritable(path: root, reason: "its folder \(parent) does not exist (is its disk mounted?); create it first")
    }

    private func probeWrite() throws(ArtworkStorageError) {
        let probe = temporary + "/\(getpid()).probe"
        do {
            try writeWhole([0x63, 0x72, 0x61, 0x74, 0x65, 0x64], to: probe, sync: false)
        } catch {
            throw .notWritable(path: root, reason: "\(error)")
        }
        unlink(probe)
    }

    public func originalPath(sha256: String) -> String {
        "\(originals)/\(sha256.prefix(2))/\(sha256)"
    }

    public func variantPath(_ key: ArtworkVariantKey) -> String {
        "\(variants)/\(key.sha256.prefix(2))/\(key.sha256)-\(key.width).\(key.format == "webp" ? "webp" : "jpg")"
    }

    public func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Writes `bytes` as the file at `path`, whole or not at all.
    public func store(_ bytes: [UInt8], at path: String) throws(ArtworkStorageError) {
        // `tmp/` too: someone clearing the cover cache while serve runs removes it with the rest.
        for folder in [temporary, (path as NSString).deletingLastPathComponent] where !exists(folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .io(path: folder, reason: Self.whyNotMade(folder) ?? Self.reason(error))
            }
        }
        let partial = "\(temporary)/\(getpid()).\(UUID().uuidString)"
        do {
            try writeWhole(bytes, to: partial, sync: true)
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw .io(path: path, reason: reason)
        }
    }

    public func read(_ path: String) throws(ArtworkStorageError) -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            if !exists(path) { throw .missing(path: path) }
            throw .io(path: path, reason: Self.reason(error))
        }
    }

    /// Removes a file; one already gone is no error.
    public func remove(_ path: String) {
        unlink(path)
    }

    /// Every original's hash and every variant on disk, for finding files the database does not know.
    public func listed() -> (originals: [String: String], variants: [ArtworkVariantKey: String]) {
        var found: (originals: [String: String], variants: [ArtworkVariantKey: String]) = ([:], [:])
        for (folder, isOriginal) in [(originals, true), (variants, false)] {
            guard let shards = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for shard in shards {
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: "\(folder)/\(shard)") else { continue }
                for name in names {
                    let path = "\(folder)/\(shard)/\(name)"
                    if isOriginal {
                        found.originals[name] = path
                    } else if let key = Self.variantKey(fileName: name) {
                        found.variants[key] = path
                    } else {
                        // Not a name crated gives: left alone.
                        continue
                    }
                }
            }
        }
        return found
    }

    /// Whether a file in `tmp/` may still be being written: its name starts with the id of a process
    /// that is running (this one included).
    static func mayBeBeingWritten(_ name: String) -> Bool {
        guard let dot = name.firstIndex(of: "."), let pid = pid_t(name[..<dot]), pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// `sha-width.ext` back to its key.
    static func variantKey(fileName: String) -> ArtworkVariantKey? {
        let parts = fileName.split(separator: ".")
        guard parts.count == 2, let dash = parts[0].lastIndex(of: "-"), let width = Int(parts[0][parts[0].index(after: dash)...]) else { return nil }
        let format: String
        switch parts[1] {
        case "webp": format = "webp"
        case "jpg": format = "jpeg"
        default: return nil
        }
        return ArtworkVariantKey(sha256: String(parts[0][..<dash]), width: width, format: format)
    }

    private func writeWhole(_ bytes: [UInt8], to path: String, sync: Bool) throws(ArtworkStorageError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure(path: path) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, bytes.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw Self.failure(path: path)
            }
            written += result
        }
        if sync && fsync(descriptor) != 0 { throw Self.failure(path: path) }
    }

    private static func failure(path: String) -> ArtworkStorageError {
        let code = errno
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        return .io(path: path, reason: String(cString: strerror(code)))
    }

    /// Foundation says only "error 512" when a folder cannot be made on Linux: the usual causes, named.
    static func whyNotMade(_ folder: String) -> String? {
        var path = (folder as NSString).standardizingPath
        while !path.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(path) is a file, not a directory" }
                return access(path, W_OK | X_OK) == 0 ? nil : "\(path) cannot be written by this user (permission denied)"
            }
            let parent = (path as NSString).deletingLastPathComponent
            guard parent != path else { return nil }
            path = parent
        }
        return nil
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
