import CratedJSON

/// The widths crated makes cover variants at, and the sizes the client draws covers at.
///
/// A request's pixel width (points times the screen's scale) is rounded up to one of a few fixed
/// widths, so that layouts whose items differ by a few points share their files and caches.
public enum ArtworkSize {
    /// Ascending; the last one covers the album page on a 3x iPad (480 points).
    public static let widths = [64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024, 1440]

    /// The narrowest width of at least `pixels`, else the widest.
    public static func width(forPixels pixels: Double) -> Int {
        widths.first { Double($0) >= pixels.rounded(.down) } ?? widths[widths.count - 1]
    }

    public static func isKnown(_ width: Int) -> Bool { widths.contains(width) }

    /// The width whose variant serves `width` of an original `originalWidth` pixels wide (nil when
    /// unknown): past the original, every width shares the narrowest that holds it whole, as crated
    /// does not upscale; so one file serves them all, under one ETag.
    public static func shared(_ width: Int, originalWidth: Int?) -> Int {
        guard let originalWidth, originalWidth > 0 else { return width }
        return min(width, self.width(forPixels: Double(originalWidth)))
    }

    /// Points the client draws a cover at (its design system's `ImageSize`).
    public enum Drawn {
        /// The mini-player's thumbnail.
        public static let thumbnail = 48.0
        /// A row of a list: search results, an artist's albums, a crate's contents, the crate list, play history.
        public static let listItem = 60.0
        /// The album page's cover on an iPhone, and on an iPad.
        public static let albumPage = 320.0
        public static let albumPageIPad = 480.0
    }
}

/// What crated knows of a cover's own copy: the key its URLs carry and, once fetched, the image's
/// displayed size and dominant colour.
public struct ArtworkSource: Sendable, Equatable {
    public var key: String
    public var width: Int?
    public var height: Int?
    /// `#rrggbb`.
    public var color: String?

    public init(key: String, width: Int? = nil, height: Int? = nil, color: String? = nil) {
        (self.key, self.width, self.height, self.color) = (key, width, height, color)
    }
}

/// A cover as answers show it: crated's own variant at the size the request draws it.
public struct ArtworkReference: Codable, Sendable, Equatable {
    /// A path on crated's own origin: `/v1/artwork/{key}/{width}`.
    public var url: String
    /// The variant's pixels: the requested width, or the original's when it is narrower.
    public var width: Int
    public var height: Int
    /// The dominant colour as `#rrggbb`, for a placeholder; null until crated has fetched the cover.
    public var color: String?

    public init(url: String, width: Int, height: Int, color: String?) {
        (self.url, self.width, self.height, self.color) = (url, width, height, color)
    }

    enum CodingKeys: String, CodingKey {
        case url, width, height, color
    }

    // `color` is written as null rather than left out: every cover has the field.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(color, forKey: .color)
    }

    public static func path(key: String, width: Int) -> String { "/v1/artwork/\(key)/\(width)" }

    /// The height of an image `original` scaled to `width` pixels wide, as the variant is made.
    public static func height(ofWidth width: Int, original: (width: Int, height: Int)) -> Int {
        max(1, Int((Double(original.height) * Double(width) / Double(original.width)).rounded()))
    }

    /// The variant of a cover whose original is `original` pixels (nil when unknown: assumed square),
    /// for `pixels` of width on screen. Never wider than the original: crated does not upscale.
    public init(key: String, original: (width: Int, height: Int)?, color: String?, pixels: Double) {
        let width = ArtworkSize.width(forPixels: pixels)
        guard let original, original.width > 0, original.height > 0 else {
            self.init(url: Self.path(key: key, width: width), width: width, height: width, color: color)
            return
        }
        let shared = ArtworkSize.shared(width, originalWidth: original.width)
        let served = min(shared, original.width)
        self.init(url: Self.path(key: key, width: shared), width: served, height: Self.height(ofWidth: served, original: original), color: color)
    }
}


extension ArtworkReference: JSONWritable {
    public func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("url", url)
            $0.field("width", width)
            $0.field("height", height)
            $0.nullableField("color", color)
        }
    }
}
