import CratedCore
import Foundation
import GRDB

/// Runs a program to completion and returns its exit status and output.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// `environment` adds to (or overrides) this process's environment; `input`, when given, is the
/// program's standard input (else it reads nothing).
public func run(_ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
                input: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    try process.run()
    if let input {
        // A few lines, well within a pipe's buffer: written whole before the output is read.
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
    }
    // Read before waiting, so a full pipe cannot block the child.
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// `run` on a thread of its own, for a test whose child process calls back into this process (the
/// fake Discogs): waiting on a thread of Swift's cooperative pool, two cores' worth, could leave the
/// fake no thread to answer on until the child's requests time out.
public func runOnItsOwnThread(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try run(executable, arguments, environment: environment) }) }.start()
    }
}
