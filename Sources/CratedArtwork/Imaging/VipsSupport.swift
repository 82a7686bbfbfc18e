import Foundation
import CVips

/// libvips, started once per process on first use (a global `let` is initialised exactly once,
/// thread-safely). Holds libvips' version string.
let libvips: String = {
    guard cvips_init("crated") == 0 else {
        fatalError("libvips failed to start: \(takeVipsError())")
    }
    // Defence in depth behind the signature check: refuse loaders libvips marks as unsafe for
    // untrusted input (ImageMagick, MATLAB, ...), which its optional modules would register.
    vips_block_untrusted_set(1)
    // One worker thread per operation: the server runs operations in parallel itself.
    vips_concurrency_set(1)
    // The operation cache can never hit here: every call brings a fresh buffer, and operations
    // are keyed by their input objects. Cached operations would only keep finished images alive;
    // with the cache off, a call's memory is freed when it returns.
    vips_cache_set_max(0)
    vips_cache_set_max_mem(0)
    vips_cache_set_max_files(0)
    return String(cString: vips_version_string())
}()

/// Reads and clears libvips' error buffer. The buffer is shared by all threads, so under load a
/// message can include another call's error; some loaders (libpng's) only print a warning.
func takeVipsError() -> String {
    let noDetail = "libvips gave no detail"
    guard let copy = vips_error_buffer_copy() else { return noDetail }
    defer { g_free(copy) }
    let message = String(cString: copy).trimmingCharacters(in: .whitespacesAndNewlines)
    return message.isEmpty ? noDetail : message.replacingOccurrences(of: "\n", with: "; ")
}

/// Owns one reference to a VipsImage and drops it when it goes out of scope.
struct OwnedImage: ~Copyable {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(_ pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    /// Takes ownership of an operation's output; throws `ImageError.corrupt` if it failed.
    init(
        producedBy operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(ImageError) {
        var output: UnsafeMutablePointer<VipsImage>?
        let status = operation(&output)
        guard status == 0, let output else {
            if let output { g_object_unref(output) }
            throw .corrupt(takeVipsError())
        }
        self.pointer = output
    }

    deinit { g_object_unref(pointer) }

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var bands: Int { Int(vips_image_get_bands(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
    var bandFormat: VipsBandFormat { vips_image_get_format(pointer) }

    func hasField(_ name: String) -> Bool {
        vips_image_get_typeof(pointer, name) != 0
    }
}
