import CJPEGResize
import CVips
import CratedCore
import CratedTestSupport
import Foundation
@testable import CratedArtwork
import Testing

@Suite("JPEG variants made in YCbCr")
struct JPEGResizerTests {
    /// Chroma subsampling as (horizontal, vertical): 4:4:4, 4:2:2, 4:4:0 and 4:2:0.
    static let subsamplings = [(1, 1), (2, 1), (1, 2), (2, 2)]

    /// A test card: colour waves over squares with sharp edges, so that a resize misplaced or
    /// stretched by a pixel shows, encoded by libjpeg-turbo with the given chroma subsampling.
    static func testCard(width: Int = 601, height: Int = 403, subsampling: (Int, Int) = (2, 2)) -> [UInt8] {
        var rgb = [UInt8]()
        rgb.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let red = 128 + 100 * sin(Double(x) / 9) * cos(Double(y) / 13)
                let green = 128 + 90 * sin(Double(x + y) / 17)
                let blue: Double = (x / 40 + y / 40).isMultiple(of: 2) ? 50 : 200
                rgb += [UInt8(red), UInt8(green), UInt8(blue)]
            }
        }
        return encode(rgb, width: width, height: height, subsampling: subsampling)
    }

    static func encode(_ rgb: [UInt8], width: Int, height: Int, subsampling: (Int, Int)) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = cjr_test_encode(
            rgb, Int32(width), Int32(height), Int32(subsampling.0), Int32(subsampling.1), 92, &output, &length
        )
        precondition(status == 0, "the test JPEG failed to encode")
        defer { cjr_free(output) }
        return [UInt8](UnsafeBufferPointer(start: output, count: length))
    }

    /// The variant by the YCbCr path alone, nil where it leaves the image to libvips.
    static func resized(_ jpeg: [UInt8], width: Int) throws -> Variant? {
        _ = ImageProcessor.libvipsVersion
        return try jpeg.withUnsafeBytes { bytes in
            let header = try ImageProcessor.readHeader(bytes, limits: ImageLimits())
            return JPEGResizer.variant(of: bytes, header: header, width: width)
        }
    }

    /// The JPEG markers before the image data: (marker byte, segment).
    static func markers(_ jpeg: [UInt8]) -> [(UInt8, ArraySlice<UInt8>)] {
        var markers: [(UInt8, ArraySlice<UInt8>)] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            markers.append((marker, jpeg[(offset + 4)..<min(jpeg.count, offset + 2 + length)]))
            if marker == 0xDA { break }  // start of scan: image data follows
            offset += 2 + length
        }
        return markers
    }

    /// The tables of a DHT segment: class (AC or DC) and number of symbols.
    static func huffmanTables(_ segment: ArraySlice<UInt8>) -> [(isAC: Bool, symbols: Int)] {
        var tables: [(isAC: Bool, symbols: Int)] = []
        var offset = segment.startIndex
        while offset + 17 <= segment.endIndex {
            let symbols = segment[(offset + 1)...(offset + 16)].reduce(0) { $0 + Int($1) }
            tables.append((isAC: segment[offset] >> 4 == 1, symbols: symbols))
            offset += 17 + symbols
        }
        return tables
    }

    @Test("every chroma subsampling, at odd sizes, comes out as libvips resizes it", arguments: subsamplings)
    func matchesLibvips(horizontal: Int, vertical: Int) throws {
        let source = Self.testCard(subsampling: (horizontal, vertical))
        // libvips resizes the same pixels from a PNG, with no shrinking on load: its JPEG path
        // shrinks 601 pixels on load to 300, not 300.5, and would be off by half a pixel.
        let pixels = try TestImages.pixels(of: source)
        let png = TestImages.encode(width: 601, height: 403, suffix: ".png") { x, y in
            Array(pixels[(y * 601 + x) * 3..<(y * 601 + x) * 3 + 3])
        }
        // Widths reached by shrinking in the DCT (by half here) lose some detail a full
        // decode keeps, as libvips' own JPEG path does (31 to 32 dB from this reference).
        for (width, floor) in [(200, 29.5), (300, 29.5), (320, 34.0), (599, 34.0), (601, 34.0)] {
            let variant = try #require(try Self.resized(source, width: width))
            let expectedHeight = ArtworkReference.height(ofWidth: width, original: (601, 403))
            #expect((variant.width, variant.height, variant.format) == (width, expectedHeight, .jpeg))

            let decoded = try DecodedHeader(variant.bytes)
            #expect((decoded.width, decoded.height, decoded.bands) == (width, expectedHeight, 3))
            #expect(decoded.interpretation == VIPS_INTERPRETATION_sRGB)

            let reference = try ImageProcessor.libvipsVariant(of: png, width: width, format: .jpeg)
            try #require((reference.width, reference.height) == (variant.width, variant.height))
            let psnr = TestImages.psnr(try TestImages.pixels(of: variant.bytes), try TestImages.pixels(of: reference.bytes))
            #expect(psnr > floor, "\(width) px: \(psnr) dB from libvips' variant")
        }
    }

    @Test("solid colours keep their colour", arguments: [[200, 30, 40], [20, 120, 230], [250, 250, 250], [3, 3, 3]] as [[UInt8]])
    func solidColour(colour: [UInt8]) throws {
        for subsampling in [(1, 1), (2, 2)] {
            let rgb = [UInt8]((0..<(200 * 150)).flatMap { _ in colour })
            let source = Self.encode(rgb, width: 200, height: 150, subsampling: subsampling)
            let variant = try #require(try Self.resized(source, width: 64))
            let pixels = try TestImages.pixels(of: variant.bytes)
            let worst = zip(pixels, colour.cycled(count: pixels.count)).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 3, "\(colour), \(subsampling): a pixel \(worst) away")
        }
    }

    @Test("a baseline 4:2:0 JPEG with optimised tables and no metadata")
    func outputFormat() throws {
        let variant = try #require(try Self.resized(Self.testCard(subsampling: (1, 1)), width: 300))
        let markers = Self.markers(variant.bytes)
        let kinds = markers.map(\.0)
        #expect(!kinds.contains { (0xE0...0xEF).contains($0) || $0 == 0xFE }, "APPn or comment: \(kinds)")
        let frame = try #require(markers.first { $0.0 == 0xC0 }?.1, "no baseline frame in \(kinds)")
        // Components follow the 6-byte frame header: id, sampling (h << 4 | v), table.
        let sampling = (0..<3).map { frame[frame.startIndex + 7 + 3 * $0] }
        #expect(sampling == [0x22, 0x11, 0x11])
        #expect(try DecodedHeader(variant.bytes).metadataFields == [])

        // Optimised Huffman tables hold only the symbols the image uses; libjpeg's standard AC
        // tables hold all 162.
        let tables = markers.filter { $0.0 == 0xC4 }.flatMap { Self.huffmanTables($0.1) }
        let acSymbols = tables.filter { $0.isAC }.map(\.symbols)
        #expect(acSymbols.count == 2 && acSymbols.allSatisfy { $0 < 162 }, "\(tables)")
    }

    @Test("images are never enlarged")
    func neverEnlarged() throws {
        let variant = try #require(try Self.resized(Self.testCard(), width: 2048))
        #expect((variant.width, variant.height) == (601, 403))
        #expect(try DecodedHeader(variant.bytes).width == 601)
    }

    @Test("what this path cannot make as libvips does is left to libvips")
    func declines() throws {
        let grey = TestImages.encode(width: 90, height: 60, bands: 1, suffix: ".jpg") { x, _ in [UInt8(x)] }
        let cmyk = TestImages.encode(width: 90, height: 60, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK, suffix: ".jpg") { _, _ in [0, 90, 200, 10] }
        let profiled = TestImages.encode(width: 90, height: 60, suffix: ".jpg[profile=srgb]") { x, y in [UInt8(x), UInt8(y), 7] }
        let rotated = TestImages.encode(width: 90, height: 60, orientation: 6, suffix: ".jpg") { x, y in [UInt8(x), UInt8(y), 7] }
        let png = TestImages.encode(width: 90, height: 60, suffix: ".png") { x, y in [UInt8(x), UInt8(y), 7] }
        let plain = TestImages.encode(width: 90, height: 60, suffix: ".jpg") { x, y in [UInt8(x), UInt8(y), 7] }

        for (name, image) in [("grey", grey), ("CMYK", cmyk), ("ICC profile", profiled), ("rotated", rotated), ("PNG", png)] {
            #expect(try Self.resized(image, width: 40) == nil, "\(name)")
            // libvips makes them instead, through the public entry point.
            let variant = try ImageProcessor.variant(of: image, width: 40, format: .jpeg)
            #expect(try DecodedHeader(variant.bytes).bands == 3, "\(name)")
        }
        #expect(try Self.resized(plain, width: 40) != nil)
    }

    @Test("JPEG variants of plain JPEGs are made by this path, WebP variants by libvips")
    func routing() throws {
        let source = Self.testCard()
        let direct = try #require(try Self.resized(source, width: 256))
        #expect(try ImageProcessor.variant(of: source, width: 256, format: .jpeg) == direct)
        let webp = try ImageProcessor.variant(of: source, width: 256, format: .webp)
        #expect(webp == (try ImageProcessor.libvipsVariant(of: source, width: 256, format: .webp)))
    }

    @Test("a truncated JPEG is left to libvips, which refuses it")
    func truncated() throws {
        let jpeg = Self.testCard()
        let truncated = Array(jpeg.prefix(jpeg.count / 2))
        #expect(try Self.resized(truncated, width: 128) == nil)
        #expect(throws: ImageError.self) { try ImageProcessor.variant(of: truncated, width: 128, format: .jpeg) }
        let fixture = try Fixtures.bytes("truncated.jpg")
        #expect(try Self.resized(fixture, width: 64) == nil)
    }

    @Test("eight tasks at once make the same bytes as one")
    func parallel() async throws {
        let source = Self.testCard()
        let widths = [128, 192, 256, 320, 384, 448, 512, 600]
        let alone = try widths.map { try #require(try Self.resized(source, width: $0)) }
        let together = try await withThrowingTaskGroup(of: (Int, Variant?).self) { group in
            for (index, width) in widths.enumerated() {
                group.addTask {
                    var last: Variant?
                    for _ in 0..<5 { last = try Self.resized(source, width: width) }
                    return (index, last)
                }
            }
            return try await group.reduce(into: [Int: Variant?]()) { $0[$1.0] = $1.1 }
        }
        for (index, variant) in together {
            #expect(variant == alone[index], "\(widths[index]) px")
        }
    }
}

private extension Array {
    /// The elements repeated to `count` elements.
    func cycled(count: Int) -> [Element] {
        (0..<count).map { self[$0 % self.count] }
    }
}
