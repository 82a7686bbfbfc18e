#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

// libvips' operations take NULL-terminated variadic option lists, which Swift cannot call.
// These inline wrappers fix the options each call site needs. Written against libvips 8.14.
// Non-variadic calls (vips_image_get_width, vips_image_write_to_memory, vips_error_buffer_copy,
// g_object_unref, g_free, ...) are used from Swift directly.

#include <vips/vips.h>

// VIPS_INIT also checks that the headers match the library's ABI. Returns 0 on success.
// libvips reports each failure through its error buffer, which becomes an ImageError; its warnings
// ("error in tile ...") would only repeat them on the daemon's standard error, once per tile.
static inline void cvips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {}

static inline int cvips_init(const char *program_name) {
    g_log_set_handler("VIPS", (GLogLevelFlags)(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO), cvips_ignore_log, NULL);
    return VIPS_INIT(program_name);
}

// Opens an image lazily: only the header is parsed until pixels are asked for, so the caller can
// check width and height before anything is decoded. The buffer is not copied and must outlive
// the image.
static inline VipsImage *cvips_open_header(const void *buffer, size_t length, VipsFailOn fail_on) {
    return vips_image_new_from_buffer(buffer, length, "",
                                      "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", fail_on,
                                      NULL);
}

// Decodes and shrinks in one pass (shrink-on-load for JPEG and WebP) to fit width x height,
// applying the EXIF orientation. `load_options` go to the loader, e.g. "fail_on=error" (libvips
// 8.14.1 does not forward thumbnail's own "fail_on" argument when loading from a buffer).
// `export_profile` (may be NULL) converts through the image's embedded ICC profile to that
// profile, e.g. the built-in "srgb"; pass it only for images that carry a profile, since it
// otherwise costs an extra colour transform. Returns 0 on success.
static inline int cvips_thumbnail(const void *buffer, size_t length, int width, int height,
                                  VipsSize size, const char *load_options,
                                  const char *export_profile, VipsImage **out) {
    if (export_profile != NULL) {
        return vips_thumbnail_buffer((void *)buffer, length, out, width,
                                     "height", height,
                                     "size", size,
                                     "option_string", load_options,
                                     "export_profile", export_profile,
                                     NULL);
    }
    return vips_thumbnail_buffer((void *)buffer, length, out, width,
                                 "height", height,
                                 "size", size,
                                 "option_string", load_options,
                                 NULL);
}

// Loads a JPEG lazily, decoding at 1/shrink of its size (shrink is 1, 2, 4 or 8: libjpeg scales
// in the DCT domain, far cheaper than decoding everything and resizing). Returns 0 on success.
static inline int cvips_jpegload(const void *buffer, size_t length, int shrink,
                                 VipsFailOn fail_on, VipsImage **out) {
    return vips_jpegload_buffer((void *)buffer, length, out,
                                "shrink", shrink,
                                "access", VIPS_ACCESS_SEQUENTIAL,
                                "fail_on", fail_on,
                                NULL);
}

// vips_thumbnail for an image already loaded (no shrink-on-load of its own), with the same
// orientation and colour handling as cvips_thumbnail. Returns 0 on success.
static inline int cvips_thumbnail_image(VipsImage *in, int width, int height, VipsSize size,
                                        const char *export_profile, VipsImage **out) {
    if (export_profile != NULL) {
        return vips_thumbnail_image(in, out, width,
                                    "height", height,
                                    "size", size,
                                    "export_profile", export_profile,
                                    NULL);
    }
    return vips_thumbnail_image(in, out, width,
                                "height", height,
                                "size", size,
                                NULL);
}

static inline int cvips_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

// Composites the alpha band onto a uniform background of `level` in every colour band
// (255 is white for 8-bit images). Expects grey + alpha or RGB + alpha.
static inline int cvips_flatten(VipsImage *in, VipsImage **out, double level) {
    double background[3] = {level, level, level};
    int colour_bands = vips_image_get_bands(in) >= 4 ? 3 : 1;
    VipsArrayDouble *array = vips_array_double_new(background, colour_bands);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

static inline int cvips_cast(VipsImage *in, VipsImage **out, VipsBandFormat format) {
    return vips_cast(in, out, format, NULL);
}

// `strip` drops every metadata block (EXIF, XMP, IPTC, ICC). libvips 8.15 replaces it with
// "keep" (VIPS_FOREIGN_KEEP_NONE); update these two wrappers when moving past 8.14.
// webpsave in 8.14.0 and 8.14.1 ignores `strip` (see WebPMetadata.swift).
// The output buffer is allocated by glib: free it with g_free.
static inline int cvips_jpegsave(VipsImage *in, void **buffer, size_t *length,
                                 int quality, gboolean optimize_coding) {
    return vips_jpegsave_buffer(in, buffer, length,
                                "Q", quality,
                                "optimize_coding", optimize_coding,
                                "interlace", FALSE,
                                "strip", TRUE,
                                NULL);
}

static inline int cvips_webpsave(VipsImage *in, void **buffer, size_t *length,
                                 int quality, int effort) {
    return vips_webpsave_buffer(in, buffer, length,
                                "Q", quality,
                                "effort", effort,
                                "strip", TRUE,
                                NULL);
}

// MARK: - Test and benchmark support

// Encodes raw pixels (`format` per band, native byte order, bands interleaved, rows top to
// bottom) with the saver chosen by `suffix`, which may carry save options, e.g. ".jpg[Q=90]" or
// ".png". A nonzero `orientation` is stored as the EXIF orientation tag (JPEG). The output buffer
// must be freed with g_free. Returns 0 on success.
static inline int cvips_test_encode(const void *pixels, size_t pixels_length,
                                    int width, int height, int bands, VipsBandFormat format,
                                    VipsInterpretation interpretation, int orientation,
                                    const char *suffix, void **buffer, size_t *length) {
    VipsImage *raw = vips_image_new_from_memory_copy(pixels, pixels_length,
                                                     width, height, bands, format);
    if (raw == NULL) return -1;
    VipsImage *tagged = NULL;
    if (vips_copy(raw, &tagged, "interpretation", interpretation, NULL) != 0) {
        g_object_unref(raw);
        return -1;
    }
    g_object_unref(raw);
    if (orientation != 0) vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int result = vips_image_write_to_buffer(tagged, suffix, buffer, length, NULL);
    g_object_unref(tagged);
    return result;
}

#endif
