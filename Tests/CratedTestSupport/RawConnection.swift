import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1, for what no HTTP client sends: half a request, a body that
/// never comes, HTTP/1.0.
public final class RawConnection {
    private let socket: Int32

    /// `receiveBuffer`: the socket's receive buffer in bytes, small for a client that stops reading.
    public init(port: Int, receiveBuffer: Int? = nil) throws {
        socket = try LoopbackSocket.connected(to: port, receiveBuffer: receiveBuffer)
    }

    deinit { close(socket) }

    public func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Ends the sending side: the server reads end of file, as when a client goes away mid-request.
    public func finishSending() {
        shutdown(socket, Int32(SHUT_WR))
    }

    /// Everything the server sends until it closes the connection, or nil when it is still open after
    /// `timeout`. Polls without blocking a thread of the cooperative pool that the server may need.
    public func readUntilClosed(timeout: Duration) async -> String? {
        let (received, closed) = await receive(timeout: timeout) { _ in false }
        return closed ? received : nil
    }

    /// What the server has sent once it ends with `suffix` (everything read, which may go on past
    /// it), or nil when that has not come within `timeout`.
    public func read(endingWith suffix: String, timeout: Duration) async -> String? {
        let (received, _) = await receive(timeout: timeout) { $0.hasSuffix(suffix) }
        return received.hasSuffix(suffix) ? received : nil
    }

    /// Reads until `done` says so, the server closes (`closed`), or `timeout` passes. The socket is
    /// looked at once more after the deadline: a task kept waiting by others past it still sees
    /// what came meanwhile.
    private func receive(timeout: Duration, until done: (String) -> Bool) async -> (received: String, closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let late = ContinuousClock.now >= deadline
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else {
                if late { break }
                try? await Task.sleep(for: .milliseconds(5))
                continue
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received += buffer[..<count]
            if done(String(decoding: received, as: UTF8.self)) || late { return (String(decoding: received, as: UTF8.self), false) }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}

/// TCP sockets on 127.0.0.1, for tests that speak below HTTP clients.
public enum LoopbackSocket {
    /// A socket connected to `port`.
    public static func connected(to port: Int, receiveBuffer: Int? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(socket); throw POSIXError(.ECONNREFUSED) }
        return socket
    }

    /// A socket listening on a port the system picks, and the port.
    public static func listening() throws -> (socket: Int32, port: Int) {
        let (socket, port) = try bound()
        guard listen(socket, 8) == 0 else { close(socket); throw POSIXError(.EADDRNOTAVAIL) }
        return (socket, port)
    }

    /// A socket bound to a port the system picks, not listening, and the port: while it is open, a
    /// connection to the port is refused, and no other server (a parallel test's) can take it.
    public static func bound() throws -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { close(socket); throw POSIXError(.EADDRNOTAVAIL) }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}
