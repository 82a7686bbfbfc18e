/// Removes metadata chunks from an encoded WebP file.
///
/// libvips 8.14.0 and 8.14.1 (Debian 12) ignore webpsave's `strip` and always write an EXIF
/// chunk (fixed in 8.14.2), so variants are cleaned here instead. On later versions there is
/// nothing to remove and the bytes come back unchanged.
enum WebPMetadata {
    /// Chunks dropped from the RIFF container: EXIF, XMP and the ICC profile (variants are sRGB,
    /// which is what a WebP without a profile is taken to be).
    static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]

    /// VP8X header flags announcing those chunks.
    private static let iccFlag: UInt8 = 0x20
    private static let exifFlag: UInt8 = 0x08
    private static let xmpFlag: UInt8 = 0x04

    /// `webp` without its metadata chunks, or nil if it is not a well-formed WebP file.
    static func stripped(_ webp: [UInt8]) -> [UInt8]? {
        guard webp.count >= 12, fourCC(webp, at: 0) == "RIFF", fourCC(webp, at: 8) == "WEBP" else { return nil }

        var output = Array(webp[0..<12])
        var offset = 12
        while offset < webp.count {
            guard offset + 8 <= webp.count else { return nil }
            let name = fourCC(webp, at: offset)
            let size = Int(readUInt32(webp, at: offset + 4))
            // Chunk data is padded to an even length.
            let end = offset + 8 + size + (size & 1)
            guard end <= webp.count else { return nil }

            if !metadataChunks.contains(name) {
                var chunk = webp[offset..<end]
                if name == "VP8X", size >= 1 {
                    chunk[offset + 8] &= ~(iccFlag | exifFlag | xmpFlag)
                }
                output += chunk
            }
            offset = end
        }
        writeUInt32(UInt32(output.count - 8), into: &output, at: 4)
        return output
    }

    private static func fourCC(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
    }

    private static func writeUInt32(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
        for index in 0..<4 {
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }
}
