#ifndef CJPEG_RESIZE_H
#define CJPEG_RESIZE_H

#include <stddef.h>

// Variants of JPEG images made in YCbCr: libjpeg-turbo decodes the planes at the smallest of its
// DCT scales (n/8) that is still at least twice the target size, libswscale resizes the planes
// to the variant's size with a Lanczos filter (libvips' filter, with SIMD), and the chroma is
// subsampled 4:2:0 as libjpeg does. Subsampled chroma resizes from its own size where it covers
// exactly the luma's picture (even sizes, as covers have); otherwise it is first brought to the
// luma's size. libjpeg encodes the variant's planes as a baseline JPEG with optimised Huffman
// tables, or libwebp as a lossy WebP, with no metadata, as libvips' savers do with `strip`.
// Nothing goes through RGB.

// Both resize `jpeg` to `width` x `height` (no larger than the image) at `quality` (1 to 100);
// WebP also at `effort` (libwebp's method, 0 to 6). They return 0 and set `*output` (release it
// with cjr_free) and `*output_length`, or return -1 without output when the image is not a
// 3-component YCbCr JPEG with 4:4:4, 4:2:2, 4:4:0 or 4:2:0 chroma, when libjpeg-turbo reports
// anything wrong with the data (a warning included), or when memory runs out.
int cjr_resize_to_jpeg(const unsigned char *jpeg, size_t length, int width, int height, int quality,
                       unsigned char **output, size_t *output_length);
int cjr_resize_to_webp(const unsigned char *jpeg, size_t length, int width, int height, int quality,
                       int effort, unsigned char **output, size_t *output_length);

void cjr_free(unsigned char *output);

// For tests: encodes 8-bit RGB pixels (rows top to bottom) as a JPEG with chroma subsampled
// `horizontal` x `vertical` times (1 or 2 each). Returns 0 and output to release with cjr_free.
int cjr_test_encode(const unsigned char *rgb, int width, int height, int horizontal, int vertical,
                    int quality, unsigned char **output, size_t *output_length);

#endif
