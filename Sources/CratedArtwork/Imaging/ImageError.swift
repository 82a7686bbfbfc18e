import CratedCore

public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Empty, or not recognisably an image (an HTML error page, say).
    case notAnImage
    /// An image, but in a format that is not accepted (the payload names it, e.g. "TIFF").
    case unsupportedFormat(String)
    /// The data is over `ImageLimits.maxSourceBytes`.
    case tooLarge(bytes: Int)
    /// The header's dimensions are over `ImageLimits.maxPixels` or `maxDimension`.
    case tooManyPixels(width: Int, height: Int)
    /// libvips could not read or write the image: truncated, corrupt, or an encoder failure.
    case corrupt(String)

    public var description: String {
        switch self {
        case .notAnImage:
            "not an image (no JPEG, PNG, WebP or GIF signature)"
        case .unsupportedFormat(let name):
            "unsupported image format \(name)"
        case .tooLarge(let bytes):
            AppDatabase.SizeRefusal.ofSize(bytes)
        case .tooManyPixels(let width, let height):
            "image too large (\(width)x\(height) pixels)"
        case .corrupt(let detail):
            "corrupt image: \(detail)"
        }
    }
}
