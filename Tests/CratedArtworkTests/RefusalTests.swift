import CratedTestSupport
import CratedArtwork
import Foundation
import Testing

@Suite("Refusing bad input")
struct RefusalTests {
    @Test func emptyData() throws {
        #expect(throws: ImageError.notAnImage) { try ImageProcessor.inspect(try Fixtures.bytes("empty.bin")) }
        #expect(throws: ImageError.notAnImage) { try ImageProcessor.inspect(Data()) }
        #expect(throws: ImageError.notAnImage) { try ImageProcessor.variant(of: [UInt8](), width: 100, format: .webp) }
    }

    @Test func htmlPage() throws {
        let html = try Fixtures.bytes("not-an-image.html")
        #expect(throws: ImageError.notAnImage) { try ImageProcessor.inspect(html) }
        #expect(throws: ImageError.notAnImage) { try ImageProcessor.variant(of: html, width: 100, format: .jpeg) }
    }

    @Test("a truncated JPEG is corrupt, not a grey half image")
    func truncatedJPEG() throws {
        let truncated = try Fixtures.bytes("truncated.jpg")
        let inspectError = #expect(throws: ImageError.self) { try ImageProcessor.inspect(truncated) }
        #expect(inspectError?.isCorrupt == true, "\(String(describing: inspectError))")
        for format in VariantFormat.allCases {
            let variantError = #expect(throws: ImageError.self) {
                try ImageProcessor.variant(of: truncated, width: 48, format: format)
            }
            #expect(variantError?.isCorrupt == true, "\(String(describing: variantError))")
        }
    }

    @Test func garbageAfterAJPEGSignature() {
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x41, count: 500)
        let error = #expect(throws: ImageError.self) { try ImageProcessor.inspect(garbage) }
        #expect(error?.isCorrupt == true, "\(String(describing: error))")
    }

    @Test("a decompression bomb is refused from its header, quickly")
    func bomb() throws {
        let bomb = try Fixtures.bytes("bomb.png")
        #expect(bomb.count < 100)
        _ = ImageProcessor.libvipsVersion  // starting libvips is not part of the check
        let started = ContinuousClock.now
        // Its image data is a few bytes: decoding it would fail as corrupt, so this error also
        // shows that the limits were checked before any decoding.
        #expect(throws: ImageError.tooManyPixels(width: 30000, height: 30000)) { try ImageProcessor.inspect(bomb) }
        #expect(throws: ImageError.tooManyPixels(width: 30000, height: 30000)) {
            try ImageProcessor.variant(of: bomb, width: 300, format: .webp)
        }
        // Decoding 900 megapixels would take tens of seconds; the bound leaves room for a busy machine.
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test func tooManyBytes() {
        let bytes = TestImages.solid([1, 2, 3], width: 64, height: 64, suffix: ".png")
        let limits = ImageLimits(maxSourceBytes: bytes.count - 1)
        #expect(throws: ImageError.tooLarge(bytes: bytes.count)) { try ImageProcessor.inspect(bytes, limits: limits) }
        #expect(throws: ImageError.tooLarge(bytes: bytes.count)) {
            try ImageProcessor.variant(of: bytes, width: 32, format: .jpeg, limits: limits)
        }
        #expect(throws: Never.self) { try ImageProcessor.inspect(bytes, limits: ImageLimits(maxSourceBytes: bytes.count)) }
    }

    @Test func tooManyPixelsOrTooLongASide() {
        let bytes = TestImages.solid([1, 2, 3], width: 400, height: 10, suffix: ".jpg")
        #expect(throws: ImageError.tooManyPixels(width: 400, height: 10)) {
            try ImageProcessor.inspect(bytes, limits: ImageLimits(maxPixels: 3_999))
        }
        #expect(throws: ImageError.tooManyPixels(width: 400, height: 10)) {
            try ImageProcessor.inspect(bytes, limits: ImageLimits(maxDimension: 399))
        }
        #expect(throws: Never.self) {
            try ImageProcessor.inspect(bytes, limits: ImageLimits(maxPixels: 4_000, maxDimension: 400))
        }
    }

    @Test("the limits apply to the displayed size of a rotated JPEG")
    func limitsAfterOrientation() {
        let rotated = TestImages.encode(width: 300, height: 20, orientation: 6, suffix: ".jpg") { _, _ in [9, 9, 9] }
        #expect(throws: ImageError.tooManyPixels(width: 20, height: 300)) {
            try ImageProcessor.variant(of: rotated, width: 10, format: .jpeg, limits: ImageLimits(maxDimension: 299))
        }
    }

    @Test("other image formats are named as unsupported", arguments: [
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], "TIFF"),
        (Array("BM".utf8) + [UInt8](repeating: 0, count: 60), "BMP"),
        ([0, 0, 0, 0x1C] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 20), "HEIF"),
        ([0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [UInt8](repeating: 0, count: 20), "AVIF"),
    ] as [([UInt8], String)])
    func unsupportedFormats(bytes: [UInt8], name: String) {
        #expect(throws: ImageError.unsupportedFormat(name)) { try ImageProcessor.inspect(bytes) }
    }

    @Test func errorsReadPlainly() {
        #expect(ImageError.tooManyPixels(width: 30000, height: 30000).description == "image too large (30000x30000 pixels)")
        #expect(ImageError.tooLarge(bytes: 21_000_000).description == "image data too large (21000000 bytes)")
        #expect(ImageError.unsupportedFormat("TIFF").description == "unsupported image format TIFF")
    }
}

extension ImageError {
    /// `.corrupt` with libvips' explanation in it.
    var isCorrupt: Bool {
        if case .corrupt(let explanation) = self { !explanation.isEmpty } else { false }
    }
}
