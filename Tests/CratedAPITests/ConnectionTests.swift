@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Connections that would otherwise stay open for ever are closed after `server.idleTimeoutSeconds`:
/// half a request head, a declared body that never comes, a connection that sends nothing.
@Suite struct ConnectionTests {
    static func application(_ server: TestServer, idleTimeoutSeconds: Int) throws -> some ApplicationProtocol {
        var configuration = try CratedConfiguration.defaults()
        configuration.serverPort = 0
        configuration.serverIdleTimeoutSeconds = idleTimeoutSeconds
        var logger = Logger(label: "crated-tests")
        logger.logLevel = .warning
        return buildApplication(configuration: configuration, services: server.services, logger: logger)
    }

    @Test func idleAndHalfSentRequestsAreClosed() async throws {
        let server = try TestServer()
        try await Self.application(server, idleTimeoutSeconds: 1).test(.live) { client in
            let port = try #require(client.port)
            let halfHead = try RawConnection(port: port)
            halfHead.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            let noBody = try RawConnection(port: port)
            noBody.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{")
            let silent = try RawConnection(port: port)
            #expect(await halfHead.readUntilClosed(timeout: .seconds(5)) != nil, "half a request head kept its connection")
            #expect(await noBody.readUntilClosed(timeout: .seconds(5)) != nil, "a body that never came kept its connection")
            #expect(await silent.readUntilClosed(timeout: .seconds(5)) != nil, "a silent connection was kept")
            // The server still answers (on a connection of its own: the client's idle one was closed too).
            let fresh = try RawConnection(port: port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try #require(await fresh.readUntilClosed(timeout: .seconds(5)))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(40))")
        }
        #expect(try server.database.crates(userId: 1).count == 6)
    }
}
