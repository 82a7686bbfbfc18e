// Tests/Benchmarks/bench-artwork.sh's measure of making variants alone, and its source of covers.
//   crated-artwork-bench              times ImageProcessor on one thread for 600x600 JPEGs (JPEG
//                                     variants by both paths), and libvips' decoder and the
//                                     encoders alone on the detailed one
//   crated-artwork-bench images DIR N writes N distinct 600x600 JPEG covers into DIR
import CVips
import CratedArtwork
import Foundation

/// A 600x600 JPEG (quality 90) that compresses like a photo: smooth gradients, a soft disc,
/// and per-pixel noise of up to `noise` levels. Noise 6 gives about 70 KB, like a typical
/// 600 px cover scan; noise 18 about 240 KB, a worst case for the JPEG decoder. Downscaled, the
/// noise averages away, so its variants are cheap to encode: the easy case. The noise is drawn
/// from `seed`, so that every run times the same image.
func photoLikeJPEG(side: Int = 600, noise: Int, tint: Double = 0, seed: UInt64 = 1) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    var pixels = [UInt8](repeating: 0, count: side * side * 3)
    for y in 0..<side {
        for x in 0..<side {
            let dx = Double(x - side / 2), dy = Double(y - side / 3)
            let disc = max(0, 1 - (dx * dx + dy * dy).squareRoot() / Double(side / 3))
            let base = [
                40 + tint + 150 * Double(x) / Double(side) + 60 * disc,
                70 + 120 * Double(y) / Double(side) + 30 * disc,
                160 - 100 * Double(x + y) / Double(2 * side) + 20 * disc,
            ]
            for band in 0..<3 {
                let grain = Double(Int.random(in: -noise...noise, using: &generator))
                pixels[(y * side + x) * 3 + band] = UInt8(max(0, min(255, base[band] + grain)))
            }
        }
    }
    return encode(pixels, side: side, as: ".jpg[Q=90]")
}

/// A 600x600 JPEG (quality 90, about 145 KB) with detail at every scale, as a photographed sleeve
/// has: value noise in each channel over cells from 300 px down to 2 px, whose amplitude falls
/// slowly with the cell size. Its variants cost what a real photo's do (a 600 px crop of a photo
/// took the same time within 10%); seeded, so every run times the same image.
func detailedJPEG(side: Int = 600) -> [UInt8] {
    var generator = SplitMix64(seed: 42)
    var sums = [Double](repeating: 128, count: side * side * 3)
    for cell in [300, 150, 75, 37, 18, 9, 4, 2] {
        let amplitude = 60 * pow(Double(cell) / 300, 0.3)
        let lattice = side / cell + 2
        for band in 0..<3 {
            let corners = (0..<lattice * lattice).map { _ in (generator.nextUnit() * 2 - 1) * amplitude }
            for y in 0..<side {
                let cellY = y / cell, ty = Double(y % cell) / Double(cell)
                for x in 0..<side {
                    let cellX = x / cell, tx = Double(x % cell) / Double(cell)
                    let top = corners[cellY * lattice + cellX] * (1 - tx) + corners[cellY * lattice + cellX + 1] * tx
                    let bottom = corners[(cellY + 1) * lattice + cellX] * (1 - tx) + corners[(cellY + 1) * lattice + cellX + 1] * tx
                    sums[(y * side + x) * 3 + band] += top * (1 - ty) + bottom * ty
                }
            }
        }
    }
    return encode(sums.map { UInt8(max(0, min(255, $0))) }, side: side, as: ".jpg[Q=90]")
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Square 8-bit RGB pixels in the format and with the options `suffix` names, e.g. ".webp[Q=80]".
func encode(_ pixels: [UInt8], side: Int, as suffix: String) -> [UInt8] {
    _ = ImageProcessor.libvipsVersion
    var buffer: UnsafeMutableRawPointer?
    var length = 0
    guard cvips_test_encode(pixels, pixels.count, Int32(side), Int32(side), 3, VIPS_FORMAT_UCHAR, VIPS_INTERPRETATION_sRGB, 0,
                            suffix, &buffer, &length) == 0, let buffer else {
        fatalError("could not encode the benchmark image as \(suffix)")
    }
    defer { g_free(buffer) }
    return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
}

/// A JPEG's pixels, decoded by libvips whole.
func decode(_ jpeg: [UInt8]) -> (pixels: [UInt8], side: Int) {
    jpeg.withUnsafeBytes { bytes in
        var image: UnsafeMutablePointer<VipsImage>?
        guard cvips_jpegload(bytes.baseAddress, bytes.count, 1, VIPS_FAIL_ON_ERROR, &image) == 0, let image else {
            fatalError("could not decode the benchmark image")
        }
        defer { g_object_unref(image) }
        var length = 0
        guard let pixels = vips_image_write_to_memory(image, &length) else { fatalError("could not decode the benchmark image") }
        defer { g_free(pixels) }
        return ([UInt8](UnsafeRawBufferPointer(start: pixels, count: length)), Int(vips_image_get_width(image)))
    }
}

func residentMegabytes() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return kilobytes / 1024
}

/// CPU time of the whole process (all threads): libvips works on its own worker thread.
func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Runs `work` in three rounds of about `seconds` / 3 after a short warm-up. Returns the best
/// round's wall-clock and CPU seconds per call: the machine may be busy with other work, and the
/// best round is the closest to the cost on an idle core.
func time(seconds: Double = 1.5, _ work: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    for _ in 0..<5 { try work() }
    var best = (wall: Double.infinity, cpu: Double.infinity)
    for _ in 0..<3 {
        let wallStart = wallSeconds(), cpuStart = processCPUSeconds()
        var calls = 0
        repeat {
            try work()
            calls += 1
        } while wallSeconds() - wallStart < seconds / 3
        let wall = (wallSeconds() - wallStart) / Double(calls)
        let cpu = (processCPUSeconds() - cpuStart) / Double(calls)
        if cpu < best.cpu { best = (wall, cpu) }
    }
    return best
}

func row(_ label: String, _ result: (wall: Double, cpu: Double), _ size: Int? = nil, labelWidth: Int = 12) -> String {
    let figures = String(format: "%8.2f  %8.2f  %8.1f", result.wall * 1000, result.cpu * 1000, 1 / result.cpu)
    return label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + figures + (size.map { String(format: "  %12d", $0) } ?? "")
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "images", arguments.count == 3, let count = Int(arguments[2]) {
    let directory = arguments[1]
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for index in 0..<count {
        // Each cover its own content (so its own original), like a real collection's.
        let jpeg = photoLikeJPEG(noise: 6, tint: Double(index % 50) - 25, seed: UInt64(index))
        try Data(jpeg).write(to: URL(fileURLWithPath: "\(directory)/\(index).jpg"))
    }
    exit(0)
}

print("libvips \(ImageProcessor.libvipsVersion), one thread")
let typical = photoLikeJPEG(noise: 6)
// 600 px covers drawn in grids (128-384 px wide) and on the album page (640 holds the whole 600).
let widths = [128, 320, 640]
let detailed = detailedJPEG()
for (name, source) in [("typical", typical), ("noisy", photoLikeJPEG(noise: 18)), ("detailed", detailed)] {
    print("\nsource: \(name) 600x600 JPEG Q90, \(source.count) bytes")
    print("variant     wall ms    CPU ms  images/s per core  output bytes")
    let paths: [(mark: String, make: (Int, VariantFormat) throws -> Variant)] = [
        ("", { try ImageProcessor.variant(of: source, width: $0, format: $1) }),
        ("*", { try ImageProcessor.libvipsVariant(of: source, width: $0, format: $1) }),
    ]
    for path in paths {
        for format in VariantFormat.allCases {
            for width in widths {
                var size = 0
                let result = try time { size = try path.make(width, format).bytes.count }
                print(row("\(format.rawValue) \(width)\(path.mark)", result, size))
            }
        }
    }
    let inspect = try time { _ = try ImageProcessor.inspect(source) }
    print(row("inspect", inspect))
}
print("\n* the same variant made by libvips alone, not in YCbCr (JPEGResizer)")

// The floor under any pipeline: libvips' JPEG decoder alone, and each encoder alone from pixels in
// memory at the settings variants use, on the detailed source (at 320 px, its own JPEG variant's pixels).
print("\nparts alone, detailed source (pixels in memory)")
print("part                         wall ms    CPU ms  per s per core  output bytes")
let decodeAlone = time { _ = decode(detailed) }
print(row("decode 600 JPEG", decodeAlone, labelWidth: 26))
let full = decode(detailed)
let small = decode(try ImageProcessor.variant(of: detailed, width: 320, format: .jpeg).bytes)
let settings = ImageProcessor.EncoderSettings.variants
for (side, pixels) in [(small.side, small.pixels), (full.side, full.pixels)] {
    for (label, suffix) in [
        ("JPEG", ".jpg[Q=\(settings.jpegQuality),optimize-coding,strip]"),
        ("WebP", ".webp[Q=\(settings.webpQuality),effort=\(settings.webpEffort),strip]"),
        ("WebP effort 2", ".webp[Q=\(settings.webpQuality),effort=2,strip]"),
    ] {
        var size = 0
        let result = time { size = encode(pixels, side: side, as: suffix).count }
        print(row("encode \(side) \(label)", result, size, labelWidth: 26))
    }
}

// Memory: resident size must level off as calls go on (glibc keeps freed memory in per-thread
// arenas, so the first rounds grow it a little).
var residentSizes = [residentMegabytes()]
for _ in 0..<3 {
    for index in 0..<1_000 {
        let format: VariantFormat = index.isMultiple(of: 2) ? .webp : .jpeg
        _ = try ImageProcessor.variant(of: typical, width: widths[index % 3], format: format)
    }
    residentSizes.append(residentMegabytes())
}
print("\nRSS (MB) every 1000 variants:", residentSizes.map { String(format: "%.1f", $0) }.joined(separator: " "))
