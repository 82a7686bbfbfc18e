#include "CJPEGResize.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <turbojpeg.h>
#include <webp/encode.h>

// MARK: - Per-thread state

// What a thread keeps between variants: its last few scaling contexts and plane buffers.
//
// A grid asks for one width of many covers, mostly of one size, and computing a context's Lanczos
// filter cost about as much as scaling the planes with it (sin() took 15% of a 320 px variant).
// A context is not safe to share, so each thread keeps its own.
//
// glibc returns freed buffers of a cover's planes to the kernel, and every new page costs a fault
// and zeroing: a 600 px cover took about 190 faults a variant, a tenth of its time. Buffers up to
// `kept_buffer_bytes` in all stay with the thread (a 600 px cover's variant needs under 1 MB).
enum { kept_contexts = 4, kept_buffers = 8 };
static const size_t kept_buffer_bytes = 2u << 20;

typedef struct {
    struct SwsContext *context;
    int source_width, source_height, width, height, filter;
    unsigned long last_used;
} kept_context;

typedef struct {
    unsigned char *data;
    size_t capacity;
} kept_buffer;

typedef struct {
    kept_context contexts[kept_contexts];
    unsigned long uses;
    kept_buffer buffers[kept_buffers];
    size_t buffer_bytes;
} thread_state;

static pthread_key_t state_key;

static void state_free(void *pointer) {
    thread_state *state = pointer;
    for (int i = 0; i < kept_contexts; i++) sws_freeContext(state->contexts[i].context);
    for (int i = 0; i < kept_buffers; i++) free(state->buffers[i].data);
    free(state);
}

static void state_key_create(void) { pthread_key_create(&state_key, state_free); }

// This thread's state, made on first use and freed when the thread ends; NULL if it cannot be made.
static thread_state *this_thread(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, state_key_create);
    thread_state *state = pthread_getspecific(state_key);
    if (state == NULL) {
        state = calloc(1, sizeof *state);
        if (state == NULL || pthread_setspecific(state_key, state) != 0) {
            free(state);
            return NULL;
        }
    }
    return state;
}

// A buffer of at least `size` bytes: the smallest kept one that is large enough, or a new one.
static unsigned char *buffer_take(size_t size, size_t *capacity) {
    thread_state *state = this_thread();
    kept_buffer *best = NULL;
    for (int i = 0; state != NULL && i < kept_buffers; i++) {
        kept_buffer *candidate = &state->buffers[i];
        if (candidate->data != NULL && candidate->capacity >= size
            && (best == NULL || candidate->capacity < best->capacity)) best = candidate;
    }
    if (best == NULL) {
        *capacity = size;
        return malloc(size);
    }
    unsigned char *data = best->data;
    *capacity = best->capacity;
    state->buffer_bytes -= best->capacity;
    *best = (kept_buffer){0};
    return data;
}

// Keeps a buffer from buffer_take for this thread's next variant, or frees it.
static void buffer_give(unsigned char *data, size_t capacity) {
    if (data == NULL) return;
    thread_state *state = this_thread();
    for (int i = 0; state != NULL && i < kept_buffers; i++) {
        if (state->buffers[i].data == NULL && state->buffer_bytes + capacity <= kept_buffer_bytes) {
            state->buffers[i] = (kept_buffer){.data = data, .capacity = capacity};
            state->buffer_bytes += capacity;
            return;
        }
    }
    free(data);
}

// MARK: - Planes

// One 8-bit plane of `width` x `height` samples, rows `stride` bytes apart, in a buffer of
// `capacity` bytes.
typedef struct {
    unsigned char *data;
    size_t capacity;
    int width, height, stride;
} plane;

static int round_up(int value, int block) { return (value + block - 1) / block * block; }

// The buffer is rounded up to whole blocks of `block` samples each way: libjpeg reads and
// writes whole blocks. Its contents are undefined.
static int plane_alloc(plane *p, int width, int height, int block) {
    int stride = round_up(width, block);
    *p = (plane){.width = width, .height = height, .stride = stride};
    p->data = buffer_take((size_t)stride * (size_t)round_up(height, block), &p->capacity);
    return p->data == NULL ? -1 : 0;
}

static void plane_free(plane *p) {
    buffer_give(p->data, p->capacity);
    *p = (plane){0};
}

static void planes_free(plane p[3]) {
    for (int i = 0; i < 3; i++) plane_free(&p[i]);
}

// Replaces `p` with `replacement`, freeing the buffer `p` had.
static void plane_replace(plane *p, plane replacement) {
    plane_free(p);
    *p = replacement;
}

// MARK: - Decoding

// Chroma subsampling of a TurboJPEG subsampling constant, or 0 for one this path does not take.
static int chroma_factors(int subsampling, int *horizontal, int *vertical) {
    switch (subsampling) {
    case TJSAMP_444: *horizontal = 1; *vertical = 1; return 1;
    case TJSAMP_422: *horizontal = 2; *vertical = 1; return 1;
    case TJSAMP_440: *horizontal = 1; *vertical = 2; return 1;
    case TJSAMP_420: *horizontal = 2; *vertical = 2; return 1;
    default: return 0;
    }
}

// Decodes to the JPEG's own Y, Cb and Cr planes at the smallest DCT scale n/8 that is still at
// least twice `width` x `height`: scaling in the DCT drops detail the resize would filter out
// anyway, for less than a full decode. It also aliases fine texture, which the Lanczos filter
// smooths only with a factor of two left to it, as libvips' shrink on load leaves it (scaled to
// the target itself, a photo of fine texture came out 1.7 dB further from a full decode's resize
// at 128 px, 2.4 dB in WebP). Nothing is upsampled or converted to RGB. Of libjpeg-turbo's
// scales, 3/8 blurs more than the resize would, and 6/8 and 7/8 cost more than a full decode.
static int decode(tjhandle decoder, const unsigned char *jpeg, size_t length,
                  int image_width, int image_height, int subsampling, int width, int height,
                  plane out[3]) {
    static const int scales[] = {1, 2, 4, 5, 8};
    int scaled_width = image_width, scaled_height = image_height;
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        int eighths = scales[i];
        int w = (image_width * eighths + 7) / 8, h = (image_height * eighths + 7) / 8;
        if (w >= 2 * width && h >= 2 * height) {
            scaled_width = w;
            scaled_height = h;
            break;
        }
    }
    unsigned char *data[3];
    int strides[3];
    for (int i = 0; i < 3; i++) {
        // TurboJPEG writes planes padded to whole MCUs (the luma of a 375-pixel 4:2:0 image is
        // 376 wide); chroma's rounded-up size is picture (188 samples cover 376 luma columns),
        // the luma's padding is not. Blocks of 16 leave room for that and for the encoder.
        int plane_width = i == 0 ? scaled_width : tjPlaneWidth(i, scaled_width, subsampling);
        int plane_height = i == 0 ? scaled_height : tjPlaneHeight(i, scaled_height, subsampling);
        if (plane_alloc(&out[i], plane_width, plane_height, 16) != 0) {
            planes_free(out);
            return -1;
        }
        data[i] = out[i].data;
        strides[i] = out[i].stride;
    }
    // A warning (corrupt data, a truncated file) ends this path: a cover with a grey half is no
    // cover, and libvips, which the caller falls back to, judges the file by its own rules.
    if (tjDecompressToYUVPlanes(decoder, jpeg, (unsigned long)length, data, scaled_width, strides,
                                scaled_height, TJFLAG_STOPONWARNING) != 0) {
        planes_free(out);
        return -1;
    }
    return 0;
}

// MARK: - Resizing

// A context for scaling GRAY8 planes with `filter` (SWS_LANCZOS, SWS_BICUBIC), owned by this
// thread; NULL when none can be made.
static struct SwsContext *scaling_context(int source_width, int source_height, int width, int height, int filter) {
    thread_state *state = this_thread();
    if (state == NULL) return NULL;
    kept_context *slot = &state->contexts[0];  // the least recently used, if none matches
    for (int i = 0; i < kept_contexts; i++) {
        kept_context *candidate = &state->contexts[i];
        if (candidate->context != NULL && candidate->source_width == source_width
            && candidate->source_height == source_height && candidate->width == width
            && candidate->height == height && candidate->filter == filter) {
            candidate->last_used = ++state->uses;
            return candidate->context;
        }
        if (candidate->last_used < slot->last_used) slot = candidate;
    }
    sws_freeContext(slot->context);
    *slot = (kept_context){
        .context = sws_getContext(source_width, source_height, AV_PIX_FMT_GRAY8, width, height, AV_PIX_FMT_GRAY8,
                                  filter | SWS_ACCURATE_RND, NULL, NULL, NULL),
        .source_width = source_width, .source_height = source_height, .width = width, .height = height,
        .filter = filter, .last_used = ++state->uses};
    return slot->context;
}

// Scales each of `count` planes in `in` to the size of the planes in `out` with libswscale's
// `filter`. The planes of each side share one size, so they share one context.
static int scale(plane *const in[], plane *const out[], int count, int filter) {
    struct SwsContext *context = scaling_context(in[0]->width, in[0]->height, out[0]->width, out[0]->height, filter);
    if (context == NULL) return -1;
    for (int i = 0; i < count; i++) {
        const uint8_t *source[4] = {in[i]->data, NULL, NULL, NULL};
        int source_stride[4] = {in[i]->stride, 0, 0, 0};
        uint8_t *destination[4] = {out[i]->data, NULL, NULL, NULL};
        int destination_stride[4] = {out[i]->stride, 0, 0, 0};
        int rows = sws_scale(context, source, source_stride, 0, in[i]->height, destination, destination_stride);
        if (rows != out[i]->height) return -1;
    }
    return 0;
}

// Scales the `count` planes from `first` on, all of one size, to `width` x `height`.
static int resize_planes(plane *first, int count, int width, int height, int filter) {
    plane resized[3] = {{0}};
    plane *in[3], *out[3];
    for (int i = 0; i < count; i++) {
        in[i] = &first[i];
        out[i] = &resized[i];
        if (plane_alloc(&resized[i], width, height, 16) != 0) {
            planes_free(resized);
            return -1;
        }
    }
    if (scale(in, out, count, filter) != 0) {
        planes_free(resized);
        return -1;
    }
    for (int i = 0; i < count; i++) plane_replace(&first[i], resized[i]);
    return 0;
}

// Brings both subsampled chroma planes to the luma's size. A subsampled plane covers whole pairs
// of luma samples (188 chroma samples cover 376 luma columns of a 375-column image), so it is
// upsampled by exactly its factors and the part beyond the luma is left out.
static int upsample_chroma(plane planes[3], int horizontal, int vertical) {
    if (horizontal == 1 && vertical == 1) return 0;
    if (resize_planes(&planes[1], 2, planes[1].width * horizontal, planes[1].height * vertical, SWS_BICUBIC) != 0) return -1;
    for (int i = 1; i < 3; i++) {
        planes[i].width = planes[0].width;
        planes[i].height = planes[0].height;
    }
    return 0;
}

// Halves a full-size chroma plane each way as libjpeg subsamples 4:2:0: the mean of each 2x2
// block with alternating rounding (1, 2, 1, ...), the last column and row repeated where the size
// is odd. Sizes are in locals and whole blocks in a loop of their own, so that it vectorizes (a
// store through `out` could change `chroma->width` for all the compiler knows).
static int subsample_chroma(plane *chroma) {
    int source_width = chroma->width, source_height = chroma->height, source_stride = chroma->stride;
    int width = (source_width + 1) / 2, height = (source_height + 1) / 2, whole = source_width / 2;
    plane half;
    if (plane_alloc(&half, width, height, 8) != 0) return -1;
    for (int y = 0; y < height; y++) {
        const unsigned char *top = chroma->data + (size_t)(2 * y) * source_stride;
        const unsigned char *bottom = 2 * y + 1 < source_height ? top + source_stride : top;
        unsigned char *out = half.data + (size_t)y * half.stride;
        for (int x = 0; x < whole; x++) {
            // Each pair of samples read as one 16-bit word (either byte order sums the same): the
            // compiler vectorizes this, not two byte loads.
            uint16_t upper, lower;
            memcpy(&upper, top + 2 * x, 2);
            memcpy(&lower, bottom + 2 * x, 2);
            out[x] = (unsigned char)(((upper & 255) + (upper >> 8) + (lower & 255) + (lower >> 8) + 1 + (x & 1)) >> 2);
        }
        if (whole < width) {
            int x = whole;
            out[x] = (unsigned char)((2 * top[2 * x] + 2 * bottom[2 * x] + 1 + (x & 1)) >> 2);
        }
    }
    plane_replace(chroma, half);
    return 0;
}

// MARK: - Encoding

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
} error_manager;

static void escape_on_error(j_common_ptr info) {
    longjmp(((error_manager *)info->err)->escape, 1);
}

// libjpeg would print its warnings on the daemon's standard error.
static void ignore_message(j_common_ptr info) { (void)info; }

// Fills a plane's buffer out to whole blocks of `block` samples each way by repeating the last
// column and row: libjpeg's raw input reads whole blocks, and a repeated edge keeps the padding
// from bleeding into the visible edge. Every plane here is allocated in whole blocks.
static void pad_to_blocks(plane *p, int block) {
    int width = round_up(p->width, block), height = round_up(p->height, block);
    for (int y = 0; y < height; y++) {
        unsigned char *row = p->data + (size_t)y * p->stride;
        if (y >= p->height) memcpy(row, row - p->stride, (size_t)p->width);
        memset(row + p->width, row[p->width - 1], (size_t)(width - p->width));
    }
}

// A destination that grows a buffer this file owns. libjpeg's own `jpeg_mem_dest` frees its first
// buffer when it grows and names the new one only once compression finishes, so after an error
// midway the caller holds a freed pointer and the live buffer leaks.
typedef struct {
    struct jpeg_destination_mgr base;
    unsigned char *data;
    size_t capacity;
} growing_destination;

static void start_growing(j_compress_ptr info) {
    growing_destination *destination = (growing_destination *)info->dest;
    destination->base.next_output_byte = destination->data;
    destination->base.free_in_buffer = destination->capacity;
}

// Called when the buffer is full: doubles it, keeping what is written.
static boolean grow(j_compress_ptr info) {
    growing_destination *destination = (growing_destination *)info->dest;
    size_t used = destination->capacity, capacity = destination->capacity * 2;
    unsigned char *grown = realloc(destination->data, capacity);
    if (grown == NULL) {
        info->err->msg_code = JERR_OUT_OF_MEMORY;
        info->err->error_exit((j_common_ptr)info);
    }
    destination->data = grown;
    destination->capacity = capacity;
    destination->base.next_output_byte = grown + used;
    destination->base.free_in_buffer = capacity - used;
    return TRUE;
}

static void finish_growing(j_compress_ptr info) { (void)info; }

// Encodes 4:2:0 planes as libvips' jpegsave does with `strip` and `optimize_coding`: baseline,
// optimised Huffman tables, no JFIF or other markers.
static int encode_jpeg(plane planes[3], int quality, unsigned char **output, size_t *output_length) {
    pad_to_blocks(&planes[0], 16);
    pad_to_blocks(&planes[1], 8);
    pad_to_blocks(&planes[2], 8);

    struct jpeg_compress_struct info;
    error_manager errors;
    // Written by libjpeg's calls through `info.dest`; read after a longjmp through this pointer.
    growing_destination destination = {
        .base = {.init_destination = start_growing, .empty_output_buffer = grow, .term_destination = finish_growing},
        .data = malloc(16 * 1024),
        .capacity = 16 * 1024,
    };
    growing_destination *volatile written = &destination;
    if (destination.data == NULL) return -1;

    info.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = escape_on_error;
    errors.base.output_message = ignore_message;
    if (setjmp(errors.escape)) {
        jpeg_destroy_compress(&info);
        free(written->data);
        return -1;
    }
    jpeg_create_compress(&info);
    info.dest = &destination.base;
    info.image_width = (JDIMENSION)planes[0].width;
    info.image_height = (JDIMENSION)planes[0].height;
    info.input_components = 3;
    info.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&info);  // luma sampled 2x2, chroma 1x1: 4:2:0
    jpeg_set_quality(&info, quality, TRUE);
    info.write_JFIF_header = FALSE;
    info.raw_data_in = TRUE;
    info.optimize_coding = TRUE;
    jpeg_start_compress(&info, TRUE);

    // One MCU row at a time: 16 luma rows and 8 of each chroma plane (padded above).
    JSAMPROW luma[16], blue[8], red[8];
    JSAMPARRAY rows[3] = {luma, blue, red};
    while (info.next_scanline < info.image_height) {
        int top = (int)info.next_scanline;
        for (int i = 0; i < 16; i++) luma[i] = planes[0].data + (size_t)(top + i) * planes[0].stride;
        for (int i = 0; i < 8; i++) {
            blue[i] = planes[1].data + (size_t)(top / 2 + i) * planes[1].stride;
            red[i] = planes[2].data + (size_t)(top / 2 + i) * planes[2].stride;
        }
        jpeg_write_raw_data(&info, rows, 16);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *output = destination.data;
    *output_length = destination.capacity - destination.base.free_in_buffer;
    return 0;
}

// VP8 stores BT.601 YCbCr in video range (luma 16 to 235, chroma 16 to 240), as libwebp's
// decoder reads it; JPEG's YCbCr is the same matrix in full range.
static void to_video_range(plane *p, int is_luma) {
    // In locals, and one loop per plane kind, so that the compiler vectorizes the loops: a store
    // through `row` could change `p->width` for all it knows (scalar, 0.7 ms of a 600 px variant).
    int width = p->width, height = p->height, stride = p->stride;
    for (int y = 0; y < height; y++) {
        unsigned char *row = p->data + (size_t)y * stride;
        if (is_luma) {
            for (int x = 0; x < width; x++) row[x] = (unsigned char)((219 * row[x] + 4207) / 255);
        } else {
            for (int x = 0; x < width; x++) row[x] = (unsigned char)((224 * row[x] + 4095) / 255);
        }
    }
}

// Encodes 4:2:0 planes as libvips' webpsave does at `quality` and `effort` (libwebp's method):
// lossy, the default preset, no metadata. The picture reads the planes where they are.
static int encode_webp(plane planes[3], int quality, int effort, unsigned char **output, size_t *output_length) {
    for (int i = 0; i < 3; i++) to_video_range(&planes[i], i == 0);
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, (float)quality) || !WebPPictureInit(&picture)) return -1;
    config.method = effort;
    picture.use_argb = 0;
    picture.colorspace = WEBP_YUV420;
    picture.width = planes[0].width;
    picture.height = planes[0].height;
    picture.y = planes[0].data;
    picture.u = planes[1].data;
    picture.v = planes[2].data;
    picture.y_stride = planes[0].stride;
    picture.uv_stride = planes[1].stride;  // both chroma planes have the same size

    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int encoded = WebPEncode(&config, &picture);
    WebPPictureFree(&picture);
    // Copied so that cjr_free releases every output alike.
    *output = encoded ? malloc(writer.size) : NULL;
    if (*output != NULL) {
        memcpy(*output, writer.mem, writer.size);
        *output_length = writer.size;
    }
    WebPMemoryWriterClear(&writer);
    return *output != NULL ? 0 : -1;
}

// MARK: - Entry points

// libswscale would log to standard error; its failures come back as return values.
static void silence_libav(void) { av_log_set_level(AV_LOG_QUIET); }

// Sets `planes` to the variant's Y, Cb and Cr planes, `width` x `height` with 4:2:0 chroma, in
// JPEG's full range. The caller frees them, whatever the outcome.
static int resized_planes(const unsigned char *jpeg, size_t length, int width, int height, plane planes[3]) {
    static pthread_once_t silenced = PTHREAD_ONCE_INIT;
    pthread_once(&silenced, silence_libav);

    tjhandle decoder = tjInitDecompress();
    if (decoder == NULL) return -1;
    int image_width, image_height, subsampling, colorspace, horizontal, vertical;
    if (tjDecompressHeader3(decoder, jpeg, (unsigned long)length, &image_width, &image_height,
                            &subsampling, &colorspace) != 0
        || colorspace != TJCS_YCbCr || !chroma_factors(subsampling, &horizontal, &vertical)
        || width < 1 || height < 1 || width > image_width || height > image_height) {
        tjDestroy(decoder);
        return -1;
    }
    int status = decode(decoder, jpeg, length, image_width, image_height, subsampling, width, height, planes);
    tjDestroy(decoder);
    if (status != 0) return -1;

    int resizing = planes[0].width != width || planes[0].height != height;
    // A 4:2:0 image kept at its size goes to the encoder as it came.
    if (!resizing && subsampling == TJSAMP_420) return 0;
    if (resizing && planes[0].width % horizontal == 0 && planes[0].height % vertical == 0) {
        // Chroma that covers exactly the luma's picture (an even-sized cover, or no subsampling)
        // resizes from its own size to the variant's, edges on edges, without being doubled first.
        status = resize_planes(&planes[0], 1, width, height, SWS_LANCZOS);
        if (status == 0) status = resize_planes(&planes[1], 2, width, height, SWS_LANCZOS);
    } else {
        // Otherwise it overhangs by a luma sample, which only whole factors drop exactly.
        status = upsample_chroma(planes, horizontal, vertical);
        if (status == 0 && resizing) status = resize_planes(planes, 3, width, height, SWS_LANCZOS);
    }
    if (status == 0) status = subsample_chroma(&planes[1]);
    if (status == 0) status = subsample_chroma(&planes[2]);
    return status;
}

int cjr_resize_to_jpeg(const unsigned char *jpeg, size_t length, int width, int height, int quality,
                       unsigned char **output, size_t *output_length) {
    plane planes[3] = {{0}};
    int status = resized_planes(jpeg, length, width, height, planes);
    if (status == 0) status = encode_jpeg(planes, quality, output, output_length);
    planes_free(planes);
    return status;
}

int cjr_resize_to_webp(const unsigned char *jpeg, size_t length, int width, int height, int quality,
                       int effort, unsigned char **output, size_t *output_length) {
    plane planes[3] = {{0}};
    int status = resized_planes(jpeg, length, width, height, planes);
    if (status == 0) status = encode_webp(planes, quality, effort, output, output_length);
    planes_free(planes);
    return status;
}

void cjr_free(unsigned char *output) { free(output); }

int cjr_test_encode(const unsigned char *rgb, int width, int height, int horizontal, int vertical,
                    int quality, unsigned char **output, size_t *output_length) {
    int subsampling = horizontal == 1 && vertical == 1 ? TJSAMP_444
                    : horizontal == 2 && vertical == 1 ? TJSAMP_422
                    : horizontal == 1 && vertical == 2 ? TJSAMP_440
                    : horizontal == 2 && vertical == 2 ? TJSAMP_420 : -1;
    tjhandle encoder = subsampling < 0 ? NULL : tjInitCompress();
    if (encoder == NULL) return -1;
    unsigned char *jpeg = NULL;
    unsigned long length = 0;
    int status = tjCompress2(encoder, rgb, width, 0, height, TJPF_RGB, &jpeg, &length, subsampling, quality, 0);
    tjDestroy(encoder);
    // Copied so that cjr_free releases every output alike.
    *output = status == 0 ? malloc(length) : NULL;
    if (*output != NULL) {
        memcpy(*output, jpeg, length);
        *output_length = length;
    }
    tjFree(jpeg);
    return *output != NULL ? 0 : -1;
}
