import CratedTestSupport
import CVips
import CratedArtwork
import Foundation
import Testing

@Suite("Inspecting images")
struct InspectTests {
    @Test("formats are sniffed from the bytes", arguments: [
        (".jpg", ImageFormat.jpeg), (".png", .png), (".webp", .webp), (".gif", .gif),
    ])
    func sniffsFormat(suffix: String, expected: ImageFormat) throws {
        let bytes = TestImages.solid([40, 90, 200], width: 48, height: 32, suffix: suffix)
        let info = try ImageProcessor.inspect(bytes)
        #expect(info.format == expected)
        #expect(info.width == 48)
        #expect(info.height == 32)
    }

    @Test func mimeTypesAndExtensions() {
        #expect(ImageFormat.jpeg.mimeType == "image/jpeg")
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
        #expect(ImageFormat.webp.mimeType == "image/webp")
        #expect(VariantFormat.webp.fileExtension == "webp")
        #expect(VariantFormat.jpeg.mimeType == "image/jpeg")
    }

    @Test func reportsWidthAndHeight() throws {
        let jpeg = TestImages.solid([10, 20, 30], width: 640, height: 480, suffix: ".jpg")
        let png = TestImages.solid([10, 20, 30], width: 301, height: 199, suffix: ".png")
        let jpegInfo = try ImageProcessor.inspect(jpeg)
        let pngInfo = try ImageProcessor.inspect(png)
        #expect((jpegInfo.width, jpegInfo.height) == (640, 480))
        #expect((pngInfo.width, pngInfo.height) == (301, 199))
        #expect(try ImageProcessor.inspect(Data(png)) == pngInfo)
    }

    @Test("EXIF orientation 6 reports the displayed (rotated) size")
    func orientationSwapsSides() throws {
        let stored = TestImages.solid([200, 30, 30], width: 200, height: 100, suffix: ".jpg")
        let rotated = TestImages.encode(width: 200, height: 100, orientation: 6, suffix: ".jpg") { _, _ in [200, 30, 30] }
        #expect(try DecodedHeader(rotated).metadataFields.contains("exif-data"))
        let storedInfo = try ImageProcessor.inspect(stored)
        let rotatedInfo = try ImageProcessor.inspect(rotated)
        #expect((storedInfo.width, storedInfo.height) == (200, 100))
        #expect((rotatedInfo.width, rotatedInfo.height) == (100, 200))
    }

    @Test("a solid colour is its own dominant colour", arguments: [
        [255, 255, 255], [0, 0, 0], [200, 30, 30], [30, 160, 60], [64, 96, 224], [127, 128, 129], [250, 200, 10],
    ] as [[UInt8]])
    func solidColour(color: [UInt8]) throws {
        for suffix in [".jpg[Q=90]", ".png", ".webp[Q=90]", ".gif"] {
            let bytes = TestImages.solid(color, width: 120, height: 90, suffix: suffix)
            let dominant = try ImageProcessor.inspect(bytes).dominantColor
            #expect(dominant.distance(to: color) <= 3, "\(suffix): \(dominant) for \(color)")
        }
    }

    @Test func hexIsLowerCaseAndPadded() {
        #expect(RGBColor(red: 0, green: 10, blue: 255).hex == "#000aff")
        #expect(RGBColor(red: 171, green: 205, blue: 239).hex == "#abcdef")
    }

    @Test("the dominant colour is the largest cluster, not the mean")
    func largestClusterWins() throws {
        // 60% red and 40% blue in noisy stripes: the mean would be a purple that is in neither.
        let bytes = TestImages.encode(width: 200, height: 100, suffix: ".png") { x, y in
            let noise = UInt8((x * 7 + y * 13) % 9)
            return x < 120 ? [200 + noise, 20 + noise, 30] : [20, 40 + noise, 210 - noise]
        }
        let dominant = try ImageProcessor.inspect(bytes).dominantColor
        #expect(dominant.distance(to: [204, 24, 30]) <= 8, "\(dominant)")
    }

    @Test("transparency is flattened onto white")
    func alphaFlattenedOntoWhite() throws {
        let transparent = TestImages.solid([0, 0, 0, 0], width: 64, height: 64, suffix: ".png")
        let opaque = TestImages.solid([30, 160, 60, 255], width: 64, height: 64, suffix: ".png")
        #expect(try ImageProcessor.inspect(transparent).dominantColor.distance(to: [255, 255, 255]) <= 3)
        #expect(try ImageProcessor.inspect(opaque).dominantColor.distance(to: [30, 160, 60]) <= 3)
    }

    @Test func greyscaleImage() throws {
        let bytes = TestImages.solid([90], width: 50, height: 40, suffix: ".png")
        let info = try ImageProcessor.inspect(bytes)
        #expect((info.width, info.height) == (50, 40))
        #expect(info.dominantColor.distance(to: [90, 90, 90]) <= 3)
    }

    @Test func cmykJPEG() throws {
        // C=0 M=0 Y=0 K=0 is paper white; libvips converts it with its built-in CMYK profile.
        let bytes = TestImages.encode(width: 64, height: 48, bands: 4, interpretation: VIPS_INTERPRETATION_CMYK, suffix: ".jpg") { _, _ in
            [0, 0, 0, 0]
        }
        #expect(try DecodedHeader(bytes).interpretation == VIPS_INTERPRETATION_CMYK)
        let info = try ImageProcessor.inspect(bytes)
        #expect(info.format == .jpeg)
        #expect((info.width, info.height) == (64, 48))
        #expect(info.dominantColor.distance(to: [255, 255, 255]) <= 6, "\(info.dominantColor)")
    }
}
