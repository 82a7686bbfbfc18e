import CVips
import Foundation

/// Inspects artwork and makes resized variants of it with libvips.
///
/// Every call first checks the data's size, its signature and the dimensions in its header
/// against `ImageLimits`, so a decompression bomb is refused before any pixel is decoded.
/// Calls are independent and may run in parallel from any thread; each runs on one libvips
/// worker thread.
public enum ImageProcessor {
    /// The libvips version in use, e.g. "8.14.1".
    public static var libvipsVersion: String { libvips }

    /// Format, displayed size and dominant colour of an image.
    public static func inspect(
        _ data: some ContiguousBytes,
        limits: ImageLimits = ImageLimits()
    ) throws(ImageError) -> ImageInfo {
        try withVips(data) { bytes throws(ImageError) in
            let header = try readHeader(bytes, limits: limits)
            // Decoding the whole image for the colour also makes truncation an error here.
            let thumbnail = try decodeToSRGB(
                bytes, header: header,
                width: dominantColorSampleSize, height: dominantColorSampleSize,
                flattenAlpha: true
            )
            return ImageInfo(
                format: header.format,
                width: header.width,
                height: header.height,
                dominantColor: try dominantColor(of: thumbnail)
            )
        }
    }

    /// The image scaled to `width` (never up: a narrower image keeps its own width), height by
    /// aspect ratio, EXIF orientation applied, in 8-bit sRGB without metadata. JPEG variants have
    /// alpha flattened onto white; WebP variants keep it. `width` must be positive.
    /// Variants of plain YCbCr JPEGs are made by `JPEGResizer`; everything else by libvips.
    public static func variant(
        of data: some ContiguousBytes,
        width: Int,
        format: VariantFormat,
        limits: ImageLimits = ImageLimits()
    ) throws(ImageError) -> Variant {
        try makeVariant(of: data, width: width, format: format, limits: limits, inYCbCr: true)
    }

    /// The same variant made by libvips alone, whatever the image (public for the benchmark,
    /// which compares the two paths).
    public static func libvipsVariant(
        of data: some ContiguousBytes,
        width: Int,
        format: VariantFormat,
        limits: ImageLimits = ImageLimits()
    ) throws(ImageError) -> Variant {
        try makeVariant(of: data, width: width, format: format, limits: limits, inYCbCr: false)
    }

    /// `inYCbCr` lets `JPEGResizer` make the variants it can.
    private static func makeVariant(
        of data: some ContiguousBytes, width: Int, format: VariantFormat, limits: ImageLimits, inYCbCr: Bool
    ) throws(ImageError) -> Variant {
        precondition(width > 0, "variant width must be positive, got \(width)")
        return try withVips(data) { bytes throws(ImageError) in
            let header = try readHeader(bytes, limits: limits)
            if inYCbCr, let variant = JPEGResizer.variant(of: bytes, header: header, width: width, format: format) {
                return variant
            }
            return try makeWithLibvips(bytes, header: header, width: width, format: format)
        }
    }

    private static func makeWithLibvips(
        _ bytes: UnsafeRawBufferPointer, header: Header, width: Int, format: VariantFormat
    ) throws(ImageError) -> Variant {
        let image = try decodeToSRGB(
            bytes, header: header,
            width: width, height: variantHeightBound,
            flattenAlpha: format == .jpeg
        )
        return Variant(
            bytes: try encode(image, as: format),
            width: image.width,
            height: image.height,
            format: format
        )
    }

    // MARK: - Settings

    /// Dominant colour is taken from a thumbnail that fits in this square.
    static let dominantColorSampleSize = 32
    /// Variants are bounded by width only; this height is out of reach of any accepted image.
    static let variantHeightBound = 100_000
    /// How variants are encoded (public for the benchmark, which times the encoders alone).
    public struct EncoderSettings: Sendable {
        public let jpegQuality: Int32
        public let webpQuality: Int32
        /// WebP encoder effort, 0 (fastest) to 6. A cold grid waits for its variants, so speed wins:
        /// effort 0 takes 0.55x to 0.6x the encoder time of 2 for the same or better PSNR, in files
        /// up to a quarter larger on a photograph (a 320 px cover: 11.5 KB against 9.1 KB).
        public let webpEffort: Int32

        public static let variants = EncoderSettings(jpegQuality: 82, webpQuality: 80, webpEffort: 0)
    }

    // MARK: - Pipeline

    /// What the header says, after the limits have been checked.
    struct Header {
        var format: ImageFormat
        /// Displayed (orientation-corrected) dimensions.
        var width: Int
        var height: Int
        var hasICCProfile: Bool
        /// No EXIF orientation, or the upright one: the stored pixels are the displayed ones.
        var isUpright: Bool
    }

    /// Runs `body` on the data's bytes with libvips started, and releases libvips' per-thread
    /// buffers afterwards (the calling thread may be a pool thread that libvips never sees exit).
    /// libvips reads the bytes in place, so every image must be released inside `body`.
    private static func withVips<Result>(
        _ data: some ContiguousBytes,
        _ body: (UnsafeRawBufferPointer) throws(ImageError) -> Result
    ) throws(ImageError) -> Result {
        _ = libvips
        defer { vips_thread_shutdown() }
        let outcome: Swift.Result<Result, ImageError> = data.withUnsafeBytes { bytes in
            do throws(ImageError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Checks size, signature and header dimensions. Only the header is parsed.
    static func readHeader(_ bytes: UnsafeRawBufferPointer, limits: ImageLimits) throws(ImageError) -> Header {
        guard bytes.count <= limits.maxSourceBytes else { throw .tooLarge(bytes: bytes.count) }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .notAnImage }

        let format: ImageFormat
        switch ImageFormat.sniff(bytes) {
        case .supported(let supported): format = supported
        case .unsupported(let name): throw .unsupportedFormat(name)
        case .notAnImage: throw .notAnImage
        }

        guard let opened = cvips_open_header(base, bytes.count, VIPS_FAIL_ON_ERROR) else {
            throw .corrupt(takeVipsError())
        }
        let image = OwnedImage(opened)
        let swapsSides = vips_image_get_orientation_swap(image.pointer) != 0
        let width = swapsSides ? image.height : image.width
        let height = swapsSides ? image.width : image.height
        guard width <= limits.maxDimension, height <= limits.maxDimension,
              width * height <= limits.maxPixels
        else { throw .tooManyPixels(width: width, height: height) }

        return Header(
            format: format, width: width, height: height,
            hasICCProfile: image.hasField("icc-profile-data"),
            isUpright: vips_image_get_orientation(image.pointer) == 1
        )
    }

    /// Decodes, shrinking on load where the format allows, to fit `width` x `height` (never
    /// enlarging), rotated upright, as 8-bit sRGB with alpha kept or flattened onto white.
    static func decodeToSRGB(
        _ bytes: UnsafeRawBufferPointer, header: Header,
        width: Int, height: Int, flattenAlpha: Bool
    ) throws(ImageError) -> OwnedImage {
        // Only images with an embedded profile go through it; the rest are taken as sRGB
        // (CMYK without a profile is converted with libvips' built-in CMYK profile).
        let exportProfile = header.hasICCProfile ? "srgb" : nil
        var image: OwnedImage
        if header.format == .jpeg {
            // vips_thumbnail_buffer shrinks JPEGs on load only to twice the target size and
            // resizes the rest of the way. Shrinking on load as far as the target allows roughly
            // halves the time for 600 -> 300, for slightly more aliasing than a Lanczos resize.
            let shrink = jpegShrinkOnLoad(header: header, width: width, height: height)
            let loaded = try OwnedImage { output in
                cvips_jpegload(bytes.baseAddress, bytes.count, Int32(shrink), VIPS_FAIL_ON_ERROR, output)
            }
            image = try OwnedImage { output in
                cvips_thumbnail_image(loaded.pointer, Int32(width), Int32(height), VIPS_SIZE_DOWN, exportProfile, output)
            }
        } else {
            image = try OwnedImage { output in
                cvips_thumbnail(
                    bytes.baseAddress, bytes.count, Int32(width), Int32(height),
                    VIPS_SIZE_DOWN, "fail_on=error", exportProfile, output
                )
            }
        }
        if image.interpretation != VIPS_INTERPRETATION_sRGB {
            image = try OwnedImage { [source = image.pointer] output in
                cvips_colourspace(source, output, VIPS_INTERPRETATION_sRGB)
            }
        }
        if flattenAlpha && image.hasAlpha {
            image = try OwnedImage { [source = image.pointer] output in
                cvips_flatten(source, output, 255)
            }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try OwnedImage { [source = image.pointer] output in
                cvips_cast(source, output, VIPS_FORMAT_UCHAR)
            }
        }
        return image
    }

    /// The largest JPEG shrink-on-load factor (1, 2, 4 or 8) that still leaves the image at least
    /// as large as the box it is to fit in, so the final resize only ever reduces.
    static func jpegShrinkOnLoad(header: Header, width: Int, height: Int) -> Int {
        let reduction = max(Double(header.width) / Double(width), Double(header.height) / Double(height))
        return [8, 4, 2].first { Double($0) <= reduction } ?? 1
    }

    static func encode(_ image: borrowing OwnedImage, as format: VariantFormat) throws(ImageError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let settings = EncoderSettings.variants
        let status = switch format {
        case .jpeg: cvips_jpegsave(image.pointer, &buffer, &length, settings.jpegQuality, 1)
        case .webp: cvips_webpsave(image.pointer, &buffer, &length, settings.webpQuality, settings.webpEffort)
        }
        defer { g_free(buffer) }
        guard status == 0, let buffer else { throw .corrupt(takeVipsError()) }
        let encoded = [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
        switch format {
        case .jpeg:
            return encoded
        case .webp:
            guard let stripped = WebPMetadata.stripped(encoded) else {
                throw .corrupt("libvips wrote a malformed WebP file")
            }
            return stripped
        }
    }

    /// The mean colour of the most populated bucket when the pixels are quantised to 3 bits per
    /// channel (512 buckets), so a photo's main surface wins over the average of everything.
    static func dominantColor(of image: borrowing OwnedImage) throws(ImageError) -> RGBColor {
        guard image.bands == 3 else { throw .corrupt("\(image.bands) bands after conversion to sRGB") }
        var length = 0
        guard let pixels = vips_image_write_to_memory(image.pointer, &length) else {
            throw .corrupt(takeVipsError())
        }
        defer { g_free(pixels) }

        var counts = [Int](repeating: 0, count: 512)
        var sums = [(red: Int, green: Int, blue: Int)](repeating: (0, 0, 0), count: 512)
        let bytes = UnsafeRawBufferPointer(start: pixels, count: length)
        for offset in stride(from: 0, to: length - 2, by: 3) {
            let red = Int(bytes[offset]), green = Int(bytes[offset + 1]), blue = Int(bytes[offset + 2])
            let bucket = (red >> 5) << 6 | (green >> 5) << 3 | blue >> 5
            counts[bucket] += 1
            sums[bucket].red += red
            sums[bucket].green += green
            sums[bucket].blue += blue
        }
        guard let largest = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[largest] > 0 else {
            throw .corrupt("image has no pixels")
        }
        let count = counts[largest]
        func mean(_ sum: Int) -> UInt8 { UInt8((sum + count / 2) / count) }
        return RGBColor(red: mean(sums[largest].red), green: mean(sums[largest].green), blue: mean(sums[largest].blue))
    }
}
