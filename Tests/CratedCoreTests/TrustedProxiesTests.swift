@testable import CratedCore
import Testing

/// Which client a request behind a reverse proxy came from (`server.trustedProxies`).
@Suite struct TrustedProxiesTests {
    @Test func addressesAndRangesOfBothFamiliesAreParsed() throws {
        let proxies = try TrustedProxies(parsing: " 127.0.0.1,::1  10.0.0.0/8,fd00::/8, 192.168.1.0/25 ::ffff:172.16.0.0/108")
        for inside in ["127.0.0.1", "::1", "[::1]:443", "10.255.0.1", "10.0.0.1:5000", "fd12:3456::1", "192.168.1.127",
                       "::ffff:10.0.0.1", "172.16.0.1", "172.31.255.255"] {
            #expect(proxies.contains(inside), "\(inside)")
        }
        for outside in ["127.0.0.2", "::2", "11.0.0.1", "fe80::1", "192.168.1.128", "172.32.0.1", "", "unknown", "10.0.0.1/8", "[::1",
                        "[::1]junk", "[::1]:", "10.0.0.1:port"] {
            #expect(!proxies.contains(outside), "\(outside)")
        }
        #expect(try TrustedProxies(parsing: "").isEmpty)
        #expect(try TrustedProxies(parsing: " , ").isEmpty)
        // The list holds addresses as written, without the ports and brackets a header may carry.
        for entry in ["localhost", "10.0.0.1:80", "[::1]", "10.0.0.0:80/8", "10.0.0.0/8/8"] {
            #expect(throws: TrustedProxiesError.notAnAddress(entry)) { try TrustedProxies(parsing: entry) }
        }
        #expect(throws: TrustedProxiesError.badPrefix("10.0.0.0/", allowed: 0...32)) { try TrustedProxies(parsing: "10.0.0.0/") }
        #expect(throws: TrustedProxiesError.badPrefix("fd00::/129", allowed: 0...128)) { try TrustedProxies(parsing: "fd00::/129") }
        #expect(throws: TrustedProxiesError.badPrefix("::ffff:10.0.0.0/64", allowed: 96...128)) { try TrustedProxies(parsing: "::ffff:10.0.0.0/64") }
        #expect(TrustedProxiesError.badPrefix("::ffff:10.0.0.0/64", allowed: 96...128).description
            == "'::ffff:10.0.0.0/64' has a prefix length that is not from 96 to 128")
        // Everything: a proxy in front of the whole internet, as the operator asked.
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains("203.0.113.9"))
    }

    @Test func theClientIsTheNearestAddressNotAProxy() throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8")
        // No proxies listed, or a peer that is not one: the peer, whatever the header says.
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.9"]) == "127.0.0.1")
        #expect(proxies.clientAddress(peer: "198.51.100.7", forwardedFor: ["203.0.113.9"]) == "198.51.100.7")
        #expect(proxies.clientAddress(peer: nil, forwardedFor: ["203.0.113.9"]) == nil)
        // A dual-stack listener's IPv4 peer is the same key as the address a proxy writes.
        #expect(TrustedProxies.none.clientAddress(peer: "::ffff:198.51.100.7", forwardedFor: []) == "198.51.100.7")
        #expect(proxies.clientAddress(peer: "::ffff:127.0.0.1", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        // From a proxy: its header, without one the proxy itself.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: []) == "127.0.0.1")
        // Read from the right past the proxies; what the client wrote on the left is not believed.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["1.2.3.4, 203.0.113.9, 10.0.0.2"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["1.2.3.4", "203.0.113.9", "10.0.0.2"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["10.0.0.3, 10.0.0.2"]) == "10.0.0.3")
        // An entry that is no address stops the walk at the last proxy reached.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.9, unknown, 10.0.0.2"]) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["unknown"]) == "127.0.0.1")
        // One client is one address however a proxy writes it.
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["[2001:DB8:0:0::1]:51000"]) == "2001:db8::1")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["::ffff:203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.9:8443"]) == "203.0.113.9")
    }
}
