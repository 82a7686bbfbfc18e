import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a file whole or not at all: into a temporary file beside it (the same file system, so
/// that `rename` is atomic), synced, then renamed over it. A process killed on the way leaves the
/// previous file as it was and a `<name>.partial-<pid>` beside it, which the next writer removes.
public enum AtomicFile {
    public static func temporaryPath(beside path: String) -> String {
        "\(path).partial-\(getpid())"
    }

    /// Removes the temporary files of writers to `path` that are no longer running.
    public static func removeAbandonedTemporaryFiles(beside path: String) {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".partial-"
        let directory = url.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            // `name.partial-<pid>` and the `-journal`, `-wal` or `-shm` SQLite keeps beside it.
            let pidText = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let pid = pid_t(pidText), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(at: directory.appending(path: name))
            }
        }
    }

    /// Flushes the file's contents to the disk.
    public static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw AtomicFileError(path: path, operation: "open", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw AtomicFileError(path: path, operation: "sync", errno: errno) }
    }

    /// Renames `temporary` over `path` and syncs the directory, so that the rename itself survives a
    /// power cut.
    public static func replace(_ path: String, with temporary: String) throws {
        guard rename(temporary, path) == 0 else { throw AtomicFileError(path: path, operation: "rename \(temporary) to", errno: errno) }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    /// Creates an empty file at `path` that only its owner may read or write: what is written into it
    /// (a database, with password and token hashes) is never readable by others on the way.
    public static func createPrivate(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AtomicFileError(path: path, operation: "create", errno: errno) }
        close(descriptor)
    }

    /// Gives `temporary` the owner, group and permissions of the file at `path`, when there is one,
    /// so that renaming it over that file changes only the contents.
    public static func matchOwnerAndMode(of path: String, on temporary: String) throws {
        var existing = stat()
        guard stat(path, &existing) == 0 else { return }
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFileError(path: temporary, operation: "open", errno: errno) }
        defer { close(descriptor) }
        var current = stat()
        guard fstat(descriptor, &current) == 0 else { throw AtomicFileError(path: temporary, operation: "stat", errno: errno) }
        if current.st_uid != existing.st_uid || current.st_gid != existing.st_gid {
            guard fchown(descriptor, existing.st_uid, existing.st_gid) == 0 else {
                throw AtomicFileError(path: path, operation: "keep the owner (user id \(existing.st_uid), group id \(existing.st_gid)) of", errno: errno)
            }
        }
        guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else {
            throw AtomicFileError(path: path, operation: "keep the permissions of", errno: errno)
        }
    }

    /// The file `path` names, with symbolic links followed (in its folder too, when it does not exist
    /// yet): renaming over a link would replace the link and leave the file it points to as it was.
    public static func resolved(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let url = URL(fileURLWithPath: path)
        guard let folder = realPath(url.deletingLastPathComponent().path) else { return path }
        return URL(fileURLWithPath: folder).appending(path: url.lastPathComponent).path
    }

    private static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The same file, by device and inode, whatever the paths say (links, `..`, another spelling).
    public static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}

public struct AtomicFileError: Error, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var errno: Int32

    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }
}
