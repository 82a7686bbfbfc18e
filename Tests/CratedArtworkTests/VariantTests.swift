import CratedTestSupport
import CVips
@testable import CratedArtwork
import Testing

@Suite("Making variants")
struct VariantTests {
    /// A 600x400 photo-like JPEG with EXIF (libvips writes a basic block) and an sRGB ICC profile.
    static let landscape = TestImages.encode(width: 600, height: 400, suffix: ".jpg[profile=srgb]") { x, y in
        [UInt8(x * 255 / 599), UInt8(y * 255 / 399), UInt8((x + y) % 256)]
    }

    @Test("variants decode back at the requested width", arguments: VariantFormat.allCases)
    func requestedWidth(format: VariantFormat) throws {
        let variant = try ImageProcessor.variant(of: Self.landscape, width: 300, format: format)
        #expect(variant.format == format)
        #expect((variant.width, variant.height) == (300, 200))

        let decoded = try DecodedHeader(variant.bytes)
        #expect(try ImageProcessor.inspect(variant.bytes).format == format.imageFormat)
        #expect((decoded.width, decoded.height) == (300, 200))
        #expect(decoded.bands == 3)
        #expect(decoded.interpretation == VIPS_INTERPRETATION_sRGB)
    }

    @Test("the source carried metadata and the variants carry none", arguments: VariantFormat.allCases)
    func metadataStripped(format: VariantFormat) throws {
        let source = try DecodedHeader(Self.landscape)
        #expect(source.metadataFields.contains("exif-data"))
        #expect(source.metadataFields.contains("icc-profile-data"))
        let rotated = TestImages.encode(width: 80, height: 40, orientation: 6, suffix: ".jpg[profile=srgb]") { _, _ in [1, 2, 3] }
        #expect(try DecodedHeader(rotated).metadataFields.contains("orientation"))

        for input in [Self.landscape, rotated] {
            let variant = try ImageProcessor.variant(of: input, width: 64, format: format)
            let fields = try DecodedHeader(variant.bytes).metadataFields
            #expect(fields == [], "\(fields)")
        }
    }

    @Test("images are never enlarged", arguments: VariantFormat.allCases)
    func neverUpscaled(format: VariantFormat) throws {
        let small = TestImages.solid([5, 100, 200], width: 120, height: 80, suffix: ".png")
        let variant = try ImageProcessor.variant(of: small, width: 300, format: format)
        #expect((variant.width, variant.height) == (120, 80))
        let decoded = try DecodedHeader(variant.bytes)
        #expect((decoded.width, decoded.height) == (120, 80))
    }

    @Test("height follows the aspect ratio", arguments: [(601, 403, 300), (1000, 10, 144), (90, 1200, 60), (640, 480, 144)])
    func heightByAspect(width: Int, height: Int, target: Int) throws {
        let source = TestImages.solid([77, 77, 77], width: width, height: height, suffix: ".jpg")
        let variant = try ImageProcessor.variant(of: source, width: target, format: .jpeg)
        let expectedHeight = Double(height) * Double(target) / Double(width)
        #expect(variant.width == target)
        #expect(abs(Double(variant.height) - expectedHeight) <= 1, "\(variant.height) vs \(expectedHeight)")
        #expect(try DecodedHeader(variant.bytes).height == variant.height)
    }

    @Test("JPEGs shrink on load as far as the target allows", arguments: [
        (600, 600, 300, 100_000, 2), (600, 600, 144, 100_000, 4), (600, 600, 600, 100_000, 1),
        (600, 600, 599, 100_000, 1), (3000, 2000, 300, 100_000, 8), (600, 600, 32, 32, 8),
        (100, 3000, 32, 32, 8), (50, 40, 300, 100_000, 1),
    ])
    func jpegShrinkOnLoad(width: Int, height: Int, targetWidth: Int, targetHeight: Int, expected: Int) {
        let header = ImageProcessor.Header(format: .jpeg, width: width, height: height, hasICCProfile: false, isUpright: true)
        #expect(ImageProcessor.jpegShrinkOnLoad(header: header, width: targetWidth, height: targetHeight) == expected)
    }

    @Test("EXIF orientation is applied")
    func orientationApplied() throws {
        // Stored 200x100, left half red and right half blue. Orientation 6 displays it turned
        // 90 degrees clockwise: 100x200, red on top.
        let rotated = TestImages.encode(width: 200, height: 100, orientation: 6, suffix: ".jpg[Q=95]") { x, _ in
            x < 100 ? [220, 20, 20] : [20, 20, 220]
        }
        let variant = try ImageProcessor.variant(of: rotated, width: 50, format: .jpeg)
        #expect((variant.width, variant.height) == (50, 100))

        let topColour = try ImageProcessor.inspect(crop(variant.bytes, top: true)).dominantColor
        #expect(topColour.distance(to: [220, 20, 20]) <= 12, "\(topColour)")
    }

    @Test func cmykBecomesSRGB() throws {
        let cmyk = TestImages.encode(width: 200, height: 100, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK, suffix: ".jpg") { _, _ in
            [0, 0, 0, 0]
        }
        for format in VariantFormat.allCases {
            let variant = try ImageProcessor.variant(of: cmyk, width: 100, format: format)
            let decoded = try DecodedHeader(variant.bytes)
            #expect(decoded.bands == 3)
            #expect(decoded.interpretation == VIPS_INTERPRETATION_sRGB)
            #expect((decoded.width, decoded.height) == (100, 50))
            #expect(try ImageProcessor.inspect(variant.bytes).dominantColor.distance(to: [255, 255, 255]) <= 6)
        }
    }

    @Test("a CMYK JPEG with an embedded CMYK profile becomes sRGB")
    func cmykWithProfile() throws {
        let cmyk = TestImages.encode(width: 120, height: 60, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK, suffix: ".jpg[profile=cmyk]") { _, _ in
            [0, 255, 255, 0]
        }
        #expect(try DecodedHeader(cmyk).metadataFields.contains("icc-profile-data"))
        let info = try ImageProcessor.inspect(cmyk)
        // Full magenta and yellow print as a warm red.
        #expect(info.dominantColor.red > 180 && info.dominantColor.green < 90 && info.dominantColor.blue < 90, "\(info.dominantColor)")
        for format in VariantFormat.allCases {
            let variant = try ImageProcessor.variant(of: cmyk, width: 60, format: format)
            let decoded = try DecodedHeader(variant.bytes)
            #expect((decoded.width, decoded.height, decoded.bands) == (60, 30, 3))
            #expect(decoded.metadataFields == [])
            let colour = try ImageProcessor.inspect(variant.bytes).dominantColor
            #expect(colour.distance(to: [info.dominantColor.red, info.dominantColor.green, info.dominantColor.blue]) <= 6, "\(colour)")
        }
    }

    @Test("an embedded profile is converted to sRGB, not just dropped")
    func profileConverted() throws {
        // The same pixel values mean a more saturated green in Display P3 than in sRGB.
        let green: [UInt8] = [40, 200, 60]
        let p3 = TestImages.encode(width: 64, height: 64, suffix: ".png[profile=p3]") { _, _ in green }
        #expect(try DecodedHeader(p3).metadataFields.contains("icc-profile-data"))
        let variant = try ImageProcessor.variant(of: p3, width: 64, format: .webp)
        #expect(try DecodedHeader(variant.bytes).metadataFields == [])
        let converted = try ImageProcessor.inspect(variant.bytes).dominantColor
        #expect(converted.distance(to: green) > 10, "\(converted)")
        #expect(converted.green > converted.red && converted.green > converted.blue)
    }

    @Test("alpha is kept in WebP and flattened onto white in JPEG")
    func alphaHandling() throws {
        let halfTransparent = TestImages.encode(width: 100, height: 100, bands: 4, suffix: ".png") { x, _ in
            x < 50 ? [0, 0, 0, 0] : [10, 120, 240, 255]
        }
        let webp = try ImageProcessor.variant(of: halfTransparent, width: 50, format: .webp)
        #expect(try DecodedHeader(webp.bytes).bands == 4)

        let jpeg = try ImageProcessor.variant(of: halfTransparent, width: 50, format: .jpeg)
        #expect(try DecodedHeader(jpeg.bytes).bands == 3)
        let left = try ImageProcessor.inspect(crop(jpeg.bytes, left: true)).dominantColor
        #expect(left.distance(to: [255, 255, 255]) <= 3, "\(left)")
    }

    @Test("greyscale and palette sources come out as sRGB", arguments: [".png", ".gif", ".webp"])
    func otherSources(suffix: String) throws {
        let grey = TestImages.solid([128], width: 80, height: 60, suffix: suffix)
        for format in VariantFormat.allCases {
            let variant = try ImageProcessor.variant(of: grey, width: 40, format: format)
            let decoded = try DecodedHeader(variant.bytes)
            #expect((decoded.width, decoded.height, decoded.bands) == (40, 30, 3))
        }
    }

    @Test("16-bit sources come out as 8-bit")
    func sixteenBitPNG() throws {
        // 30, 160 and 60 out of 255, as 16-bit values.
        let deep = TestImages.solid16([30 * 257, 160 * 257, 60 * 257], width: 40, height: 40, suffix: ".png")
        #expect(try DecodedHeader(deep).bandFormat == VIPS_FORMAT_USHORT)
        for format in VariantFormat.allCases {
            let variant = try ImageProcessor.variant(of: deep, width: 20, format: format)
            let decoded = try DecodedHeader(variant.bytes)
            #expect((decoded.width, decoded.bands, decoded.bandFormat) == (20, 3, VIPS_FORMAT_UCHAR))
            #expect(try ImageProcessor.inspect(variant.bytes).dominantColor.distance(to: [30, 160, 60]) <= 3)
        }
        let deepColour = try ImageProcessor.inspect(deep).dominantColor
        #expect(deepColour.distance(to: [30, 160, 60]) <= 3, "\(deepColour)")
    }

    @Test("variants are made in parallel from 8 tasks")
    func parallel() async throws {
        let sizes = [144, 300, 600, 144, 300, 600, 200, 100]
        let results = try await withThrowingTaskGroup(of: (Int, Variant).self) { group in
            for (index, width) in sizes.enumerated() {
                group.addTask {
                    var last: Variant?
                    for _ in 0..<10 {
                        last = try ImageProcessor.variant(of: Self.landscape, width: width, format: index.isMultiple(of: 2) ? .webp : .jpeg)
                    }
                    return (index, last!)
                }
            }
            return try await group.reduce(into: [Int: Variant]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == sizes.count)
        for (index, variant) in results {
            let width = min(sizes[index], 600)
            #expect((variant.width, variant.height) == (width, (width * 2 + 1) / 3))
            #expect(try DecodedHeader(variant.bytes).width == width)
        }
    }

    /// The left or top half of an image, as PNG, through libvips' own test encoder.
    private func crop(_ bytes: [UInt8], left: Bool = false, top: Bool = false) throws -> [UInt8] {
        let header = try DecodedHeader(bytes)
        let pixels = try TestImages.pixels(of: bytes)
        let width = left ? header.width / 2 : header.width
        let height = top ? header.height / 2 : header.height
        return TestImages.encode(width: width, height: height, bands: 3, suffix: ".png") { x, y in
            let offset = (y * header.width + x) * 3
            return Array(pixels[offset..<offset + 3])
        }
    }
}

@Suite("Cleaning WebP metadata")
struct WebPMetadataTests {
    private func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count)
        let header = Array(name.utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
        return header + payload + (payload.count.isMultiple(of: 2) ? [] : [0])
    }

    private func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap { $0 }
        let size = UInt32(body.count)
        return Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) } + body
    }

    @Test func removesExifXmpAndICCChunksAndTheirFlags() throws {
        // VP8X flags: ICC 0x20, alpha 0x10, EXIF 0x08, XMP 0x04.
        let vp8x = chunk("VP8X", [0x3C, 0, 0, 0, 9, 0, 0, 9, 0, 0])
        let image = chunk("VP8L", [1, 2, 3, 4, 5])
        let input = riff([vp8x, chunk("ICCP", [7, 7, 7]), chunk("ALPH", [1]), image, chunk("EXIF", [9, 9]), chunk("XMP ", [8])])
        let output = try #require(WebPMetadata.stripped(input))
        #expect(output == riff([chunk("VP8X", [0x10, 0, 0, 0, 9, 0, 0, 9, 0, 0]), chunk("ALPH", [1]), image]))
        #expect(WebPMetadata.stripped(output) == output)
    }

    @Test func refusesMalformedFiles() {
        #expect(WebPMetadata.stripped(Array("RIFF....WEBX".utf8)) == nil)
        #expect(WebPMetadata.stripped(riff([chunk("VP8 ", [1, 2, 3, 4])]).dropLast(2).map { $0 }) == nil)
    }
}
