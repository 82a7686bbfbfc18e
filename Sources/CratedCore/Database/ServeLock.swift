#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Marks the database that a `crated serve` runs on: an exclusive `flock` on `<database>.serve-lock`,
/// held for the life of the process. The kernel lets go of it when the process ends, however it
/// ends, so a killed daemon leaves no stale lock. A second `serve` on the same database (two
/// background syncs against one Discogs budget, and event streams that miss the other's changes)
/// is refused, and so is `crated sync` beside one.
public final class ServeLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Beside the file the path names, links followed: a database reached through a symbolic link
    /// and by its own name has one lock.
    public static func path(forDatabase databasePath: String) -> String {
        AtomicFile.resolved(databasePath) + ".serve-lock"
    }

    /// Takes the lock for `databasePath`, or throws `ServeLockError.held` naming the process that has it.
    public static func acquire(databasePath: String) throws(ServeLockError) -> ServeLock {
        let path = path(forDatabase: databasePath)
        // Not through a symbolic link: the pid written would overwrite the file it names.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = processId(in: descriptor)
            close(descriptor)
            throw .held(databasePath: databasePath, pid: holder)
        }
        // The holder's pid, for the message a refused process prints.
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 { _ = pwrite(descriptor, text, text.count, 0) }
        return ServeLock(descriptor: descriptor)
    }

    /// Whether a `serve` holds the lock for `databasePath`, and its pid when it wrote one.
    public static func holder(databasePath: String) -> (held: Bool, pid: Int32?) {
        let descriptor = open(path(forDatabase: databasePath), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return (false, nil) }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else { return (false, nil) }
        return (true, processId(in: descriptor))
    }

    private static func processId(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

public enum ServeLockError: Error, Equatable, CustomStringConvertible {
    case held(databasePath: String, pid: Int32?)
    case cannotOpen(path: String, reason: String)

    public var description: String {
        switch self {
        case .held(let databasePath, let pid):
            "crated serve\(pid.map { " (pid \($0))" } ?? "") is already running on \(databasePath)"
        case .cannotOpen(let path, let reason):
            "cannot open \(path): \(reason)"
        }
    }
}
