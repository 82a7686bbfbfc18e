/// The source formats artwork may arrive in, recognised from the data's leading bytes alone:
/// what a server or uploader says the type is (Content-Type, file name) is not trusted.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp, gif

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        }
    }

    /// Without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .gif: "gif"
        }
    }

    /// What the leading bytes of some data say it is.
    enum Sniffed: Equatable {
        case supported(ImageFormat)
        /// An image, but in a format artwork is not accepted in (the payload names it).
        case unsupported(String)
        case notAnImage
    }

    static func sniff(_ bytes: UnsafeRawBufferPointer) -> Sniffed {
        func starts(with signature: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            return signature.indices.allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        let ascii = { (text: String) in Array(text.utf8) }

        if starts(with: [0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if starts(with: ascii("RIFF")) && starts(with: ascii("WEBP"), at: 8) { return .supported(.webp) }
        if starts(with: ascii("GIF87a")) || starts(with: ascii("GIF89a")) { return .supported(.gif) }

        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return .unsupported("TIFF") }
        if starts(with: ascii("BM")) { return .unsupported("BMP") }
        if starts(with: [0x00, 0x00, 0x01, 0x00]) { return .unsupported("ICO") }
        if starts(with: ascii("8BPS")) { return .unsupported("PSD") }
        if starts(with: [0xFF, 0x0A]) || starts(with: [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) {
            return .unsupported("JPEG XL")
        }
        if starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return .unsupported("JPEG 2000")
        }
        // ISO base media files: "ftyp" at offset 4, then the brand.
        if starts(with: ascii("ftyp"), at: 4) {
            for brand in ["avif", "avis"] where starts(with: ascii(brand), at: 8) { return .unsupported("AVIF") }
            for brand in ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
            where starts(with: ascii(brand), at: 8) {
                return .unsupported("HEIF")
            }
        }
        return .notAnImage
    }
}

/// The formats variants are encoded in.
public enum VariantFormat: String, Sendable, Hashable, CaseIterable {
    case webp, jpeg

    public var mimeType: String { imageFormat.mimeType }
    public var fileExtension: String { imageFormat.fileExtension }

    public var imageFormat: ImageFormat {
        switch self {
        case .webp: .webp
        case .jpeg: .jpeg
        }
    }
}
