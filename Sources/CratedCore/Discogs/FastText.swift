/// Byte-level text helpers for the import's hot path, where Foundation's `trimmingCharacters` and
/// `components(separatedBy:)` (bridged through NSString on Linux) cost more than the database work.
extension StringProtocol where UTF8View: BidirectionalCollection {
    /// Without leading and trailing spaces and tabs; the same string when there are none.
    package var trimmedSpaces: String {
        let bytes = utf8
        guard let first = bytes.first, let last = bytes.last else { return "" }
        if first != 0x20 && first != 0x09 && last != 0x20 && last != 0x09 { return String(self) }
        guard let start = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let end = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(self[start...end])
    }

    /// Splits on every occurrence of a separator of ASCII bytes (`", "`, `" + "`).
    package func split(onASCII separator: StaticString) -> [Substring] {
        let pattern = UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)
        let whole = Substring(self)
        let bytes = whole.utf8
        // Over the contiguous bytes when there are (native strings): indexing the view byte by byte
        // went through its generic witnesses. The separator is ASCII, so every cut is a scalar boundary.
        let fast = bytes.withContiguousStorageIfAvailable { buffer -> [Substring] in
            var parts: [Substring] = []
            var partStart = 0
            var offset = 0
            while offset < buffer.count {
                if buffer[offset] == pattern[0], buffer.count - offset >= pattern.count,
                   UnsafeBufferPointer(rebasing: buffer[offset..<offset + pattern.count]).elementsEqual(pattern) {
                    parts.append(whole[bytes.index(bytes.startIndex, offsetBy: partStart)..<bytes.index(bytes.startIndex, offsetBy: offset)])
                    offset += pattern.count
                    partStart = offset
                } else {
                    offset += 1
                }
            }
            parts.append(whole[bytes.index(bytes.startIndex, offsetBy: partStart)...])
            return parts
        }
        return fast ?? generalSplit(onASCII: separator)
    }

    /// `split(onASCII:)` through the view's own indices, for strings without contiguous bytes.
    func generalSplit(onASCII separator: StaticString) -> [Substring] {
        let pattern = UnsafeBufferPointer(start: separator.utf8Start, count: separator.utf8CodeUnitCount)
        let whole = Substring(self)
        let bytes = whole.utf8
        var parts: [Substring] = []
        var partStart = bytes.startIndex
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if bytes[index] == pattern[0], bytes[index...].starts(with: pattern) {
                parts.append(whole[partStart..<index])
                index = bytes.index(index, offsetBy: pattern.count)
                partStart = index
            } else {
                bytes.formIndex(after: &index)
            }
        }
        parts.append(whole[partStart..<bytes.endIndex])
        return parts
    }
}
