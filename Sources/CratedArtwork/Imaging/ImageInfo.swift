/// What `ImageProcessor.inspect` found.
public struct ImageInfo: Sendable, Hashable {
    public var format: ImageFormat
    /// As displayed: EXIF orientations that rotate by 90 degrees swap the stored width and height.
    public var width: Int
    public var height: Int
    /// The colour of the largest cluster of similar colours, alpha flattened onto white.
    public var dominantColor: RGBColor

    public init(format: ImageFormat, width: Int, height: Int, dominantColor: RGBColor) {
        self.format = format
        self.width = width
        self.height = height
        self.dominantColor = dominantColor
    }
}

/// An 8-bit sRGB colour.
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// "#rrggbb", lower case.
    public var hex: String {
        "#" + [red, green, blue].map { component in
            let digits = String(component, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    public var description: String { hex }
}

/// A resized, re-encoded copy of an image: sRGB, 8-bit, no metadata.
public struct Variant: Sendable, Hashable {
    public var bytes: [UInt8]
    public var width: Int
    public var height: Int
    public var format: VariantFormat

    public init(bytes: [UInt8], width: Int, height: Int, format: VariantFormat) {
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
    }
}
