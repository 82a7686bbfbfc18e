import Foundation

/// The reverse proxies whose `X-Forwarded-For` crated believes (`server.trustedProxies`): addresses
/// and CIDR ranges, IPv4 or IPv6. Behind a proxy every connection comes from the proxy's address,
/// so the sign-in throttle would count all clients as one, and one guesser would shut everyone out.
/// Anyone can send the header, so it counts only on a connection from a listed proxy; and a listed
/// address can name any client, so the list should hold the proxies' own addresses, no wider.
public struct TrustedProxies: Sendable, Equatable {
    struct AddressRange: Sendable, Equatable {
        /// 4 bytes for IPv4 (an IPv4-mapped IPv6 address among them), 16 for IPv6.
        let bytes: [UInt8]
        let prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            let whole = prefixLength / 8
            guard address.prefix(whole) == bytes.prefix(whole) else { return false }
            let rest = prefixLength % 8
            guard rest > 0 else { return true }
            let mask = UInt8(0xFF) << (8 - rest)
            return address[whole] & mask == bytes[whole] & mask
        }
    }

    let ranges: [AddressRange]

    public static let none = TrustedProxies(ranges: [])

    init(ranges: [AddressRange]) { self.ranges = ranges }

    /// Parses a list separated by commas or spaces: `127.0.0.1, ::1, 10.0.0.0/8, fd00::/8`. Empty
    /// trusts no one. Throws a reason for the first entry that is not an address or a range.
    public init(parsing list: String) throws(TrustedProxiesError) {
        var ranges: [AddressRange] = []
        for entry in list.split(whereSeparator: { $0 == "," || $0.isWhitespace }) {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.bytes(ofAddress: String(parts[0])) else { throw .notAnAddress(String(entry)) }
            var prefixLength = bytes.count * 8
            if parts.count == 2 {
                // An IPv4-mapped range (`::ffff:10.0.0.0/104`) is written in IPv6 bits and kept in IPv4 ones.
                let familyBits = parts[0].contains(":") ? 128 : 32
                let allowed = (familyBits - bytes.count * 8)...familyBits
                guard let length = Int(parts[1]), allowed.contains(length) else { throw .badPrefix(String(entry), allowed: allowed) }
                prefixLength = length - allowed.lowerBound
            }
            ranges.append(AddressRange(bytes: bytes, prefixLength: prefixLength))
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether `address` (a peer's, or a header's entry) is a listed proxy's.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(ofForwarded: address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address: the peer's, unless the peer is a listed proxy; then the nearest address
    /// in `X-Forwarded-For` (its values in order, each a list) that is not a listed proxy, read from
    /// the right, as each proxy appends the address it was reached from. Entries on the left of
    /// that one were written by the client and are not believed. An entry that is not an address
    /// (`unknown`) stops the walk at the last proxy reached, rather than trust what lies beyond it.
    /// Addresses come in canonical form, so that one client is one throttle key however it was written.
    public func clientAddress(peer: String?, forwardedFor values: [String]) -> String? {
        guard let peer, let peerBytes = Self.bytes(ofForwarded: peer) else { return peer }
        var nearest = Self.text(of: peerBytes)
        guard ranges.contains(where: { $0.contains(peerBytes) }) else { return nearest }
        for entry in values.flatMap({ $0.split(separator: ",") }).reversed() {
            guard let bytes = Self.bytes(ofForwarded: String(entry)) else { return nearest }
            nearest = Self.text(of: bytes)
            if !ranges.contains(where: { $0.contains(bytes) }) { return nearest }
        }
        return nearest
    }

    /// The bytes of an address as a proxy may write it in `X-Forwarded-For`: bare, or with a port
    /// (`192.0.2.1:5000`, `[2001:db8::1]:5000`). Nil for anything else.
    static func bytes(ofForwarded text: String) -> [UInt8]? {
        let entry = text.trimmingCharacters(in: .whitespaces)
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            let after = entry[entry.index(after: close)...]
            guard after.isEmpty || (after.hasPrefix(":") && Int(after.dropFirst()) != nil) else { return nil }
            return bytes(ofAddress: String(entry[entry.index(after: entry.startIndex)..<close]))
        }
        if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") {
            guard Int(entry[entry.index(after: colon)...]) != nil else { return nil }
            return bytes(ofAddress: String(entry[..<colon]))
        }
        return bytes(ofAddress: entry)
    }

    /// The bytes of an IPv4 (`192.0.2.1`) or IPv6 (`2001:db8::1`) address, an IPv4-mapped IPv6
    /// address as its IPv4 bytes; nil for anything else.
    static func bytes(ofAddress address: String) -> [UInt8]? {
        guard !address.isEmpty, address.utf8.count <= 45 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
        return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    /// The canonical text of an address's bytes.
    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { source in inet_ntop(family, source.baseAddress, &buffer, socklen_t(buffer.count)) }
        return written == nil ? "" : String(cString: buffer)
    }
}

public enum TrustedProxiesError: Error, Equatable, CustomStringConvertible {
    case notAnAddress(String)
    case badPrefix(String, allowed: ClosedRange<Int>)

    public var description: String {
        switch self {
        case .notAnAddress(let entry): "'\(entry)' is not an IPv4 or IPv6 address, nor a range such as 192.168.1.0/24"
        case .badPrefix(let entry, let allowed): "'\(entry)' has a prefix length that is not from \(allowed.lowerBound) to \(allowed.upperBound)"
        }
    }
}
