import CVips
import CratedArtwork
import Foundation

/// Images for the tests, encoded by libvips from pixels computed here.
public enum TestImages {
    /// `pixel(x, y)` gives the `bands` 8-bit values of each pixel. `suffix` picks the encoder and
    /// its options, e.g. ".jpg[Q=95]"; a nonzero `orientation` is written as the EXIF tag. The
    /// interpretation defaults to greyscale for 1 or 2 bands and sRGB otherwise.
    public static func encode(
        width: Int, height: Int, bands: Int = 3,
        interpretation: VipsInterpretation? = nil,
        orientation: Int = 0, suffix: String,
        pixel: (_ x: Int, _ y: Int) -> [UInt8]
    ) -> [UInt8] {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * bands)
        for y in 0..<height {
            for x in 0..<width {
                let value = pixel(x, y)
                precondition(value.count == bands)
                pixels += value
            }
        }
        let interpretation = interpretation ?? (bands < 3 ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB)
        return encode(pixels, width: width, height: height, bands: bands, bandFormat: VIPS_FORMAT_UCHAR,
                      interpretation: interpretation, orientation: orientation, suffix: suffix)
    }

    /// A solid 16-bit RGB image (0...65535 per channel).
    public static func solid16(_ color: [UInt16], width: Int, height: Int, suffix: String) -> [UInt8] {
        let samples = [UInt16]((0..<width * height).flatMap { _ in color })
        let pixels = samples.withUnsafeBytes { [UInt8]($0) }
        return encode(pixels, width: width, height: height, bands: 3, bandFormat: VIPS_FORMAT_USHORT,
                      interpretation: VIPS_INTERPRETATION_RGB16, orientation: 0, suffix: suffix)
    }

    private static func encode(
        _ pixels: [UInt8], width: Int, height: Int, bands: Int, bandFormat: VipsBandFormat,
        interpretation: VipsInterpretation, orientation: Int, suffix: String
    ) -> [UInt8] {
        _ = ImageProcessor.libvipsVersion  // starts libvips
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status = cvips_test_encode(
            pixels, pixels.count, Int32(width), Int32(height), Int32(bands), bandFormat,
            interpretation, Int32(orientation), suffix, &buffer, &length
        )
        defer { g_free(buffer) }
        guard status == 0, let buffer else {
            let message = vips_error_buffer_copy().map { String(cString: $0) } ?? "?"
            fatalError("test image \(suffix) failed to encode: \(message)")
        }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    public static func solid(_ color: [UInt8], width: Int, height: Int, suffix: String) -> [UInt8] {
        encode(width: width, height: height, bands: color.count, suffix: suffix) { _, _ in color }
    }

    /// The decoded pixels of an image, bands interleaved, rows top to bottom, as libvips reads it.
    public static func pixels(of bytes: [UInt8]) throws -> [UInt8] {
        _ = ImageProcessor.libvipsVersion
        return try bytes.withUnsafeBytes { raw in
            guard let image = cvips_open_header(raw.baseAddress, raw.count, VIPS_FAIL_ON_ERROR) else {
                vips_error_clear()
                throw DecodedHeader.DecodeFailure()
            }
            defer { g_object_unref(image) }
            var length = 0
            guard let memory = vips_image_write_to_memory(image, &length) else {
                vips_error_clear()
                throw DecodedHeader.DecodeFailure()
            }
            defer { g_free(memory) }
            return [UInt8](UnsafeRawBufferPointer(start: memory, count: length))
        }
    }

    /// Peak signal-to-noise ratio in dB between two images of the same size and bands: how far
    /// apart they are (identical is infinity; above 40 the eye sees no difference).
    public static func psnr(_ first: [UInt8], _ second: [UInt8]) -> Double {
        precondition(first.count == second.count && !first.isEmpty, "images differ in size")
        let squaredError = zip(first, second).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        return 10 * log10(255 * 255 / (squaredError / Double(first.count)))
    }
}

/// What libvips reads back from encoded bytes (header only).
public struct DecodedHeader {
    public var width: Int
    public var height: Int
    public var bands: Int
    public var interpretation: VipsInterpretation
    public var bandFormat: VipsBandFormat
    public var metadataFields: [String]

    public init(_ bytes: [UInt8]) throws {
        _ = ImageProcessor.libvipsVersion
        let opened = bytes.withUnsafeBytes { raw -> (Int, Int, Int, VipsInterpretation, VipsBandFormat, [String])? in
            guard let image = cvips_open_header(raw.baseAddress, raw.count, VIPS_FAIL_ON_ERROR) else { return nil }
            defer { g_object_unref(image) }
            let fields = Self.metadataNames.filter { vips_image_get_typeof(image, $0) != 0 }
            return (
                Int(vips_image_get_width(image)), Int(vips_image_get_height(image)),
                Int(vips_image_get_bands(image)), vips_image_get_interpretation(image),
                vips_image_get_format(image), fields
            )
        }
        guard let opened else {
            vips_error_clear()
            throw DecodeFailure()
        }
        (width, height, bands, interpretation, bandFormat, metadataFields) = opened
    }

    /// The metadata a variant must not carry.
    public static let metadataNames = ["exif-data", "icc-profile-data", "xmp-data", "iptc-data", "orientation"]

    public struct DecodeFailure: Error {
        public init() {}
    }
}

extension RGBColor {
    /// The largest difference in any one channel.
    public func distance(to other: [UInt8]) -> Int {
        zip([red, green, blue], other).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}

extension RGBColor {
    /// `#rrggbb`, as answers write a cover's colour.
    public init?(hex: String) {
        guard hex.count == 7, hex.hasPrefix("#"), let value = UInt32(hex.dropFirst(), radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}
