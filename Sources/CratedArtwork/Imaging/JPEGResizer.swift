import CJPEGResize
import CratedCore

/// Variants of JPEG images made in YCbCr, without libvips' round trip through RGB (see
/// CJPEGResize.h): the same filter and encoder settings in a quarter to four fifths of the time,
/// since libswscale's Lanczos has SIMD and libvips 8.14's has none. Covers are usually such JPEGs.
enum JPEGResizer {
    /// The variant `width` pixels wide, or nil when this path cannot make it as libvips would:
    /// an embedded ICC profile to convert, an EXIF orientation to apply, a greyscale, CMYK or RGB
    /// JPEG, or anything libjpeg-turbo finds wrong with the data. libvips makes those instead, and
    /// judges the data by its own rules. `header` must be the one read from `bytes`.
    static func variant(
        of bytes: UnsafeRawBufferPointer,
        header: ImageProcessor.Header,
        width: Int,
        format: VariantFormat
    ) -> Variant? {
        guard header.format == .jpeg, header.isUpright, !header.hasICCProfile,
              let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { return nil }
        let width = min(width, header.width)
        let height = ArtworkReference.height(ofWidth: width, original: (header.width, header.height))
        let settings = ImageProcessor.EncoderSettings.variants
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = switch format {
        case .jpeg:
            cjr_resize_to_jpeg(base, bytes.count, Int32(width), Int32(height), settings.jpegQuality, &output, &length)
        case .webp:
            cjr_resize_to_webp(
                base, bytes.count, Int32(width), Int32(height), settings.webpQuality, settings.webpEffort,
                &output, &length
            )
        }
        guard status == 0, let output else { return nil }
        defer { cjr_free(output) }
        return Variant(
            bytes: [UInt8](UnsafeBufferPointer(start: output, count: length)),
            width: width, height: height, format: format
        )
    }
}
