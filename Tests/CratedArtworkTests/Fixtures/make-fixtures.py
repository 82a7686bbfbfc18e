# Makes the fixture files next to this script: python3 make-fixtures.py (run in this directory).
# Needs libvips (through ctypes) for the truncated JPEG.
import ctypes, ctypes.util, random, struct, zlib

def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)

# A PNG whose header claims 30000x30000 RGB (2.7 GB decoded) with a few bytes of image data.
ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
with open("bomb.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))

# A noisy 96x96 JPEG cut off in the middle of its entropy-coded data.
vips = ctypes.CDLL(ctypes.util.find_library("vips"))
assert vips.vips_init(b"fixtures") == 0
random.seed(7)
width = height = 96
pixels = bytes(random.randrange(256) for _ in range(width * height * 3))
vips.vips_image_new_from_memory_copy.restype = ctypes.c_void_p
image = vips.vips_image_new_from_memory_copy(pixels, ctypes.c_size_t(len(pixels)), width, height, 3, 0)
buffer, length = ctypes.c_void_p(), ctypes.c_size_t()
assert vips.vips_image_write_to_buffer(ctypes.c_void_p(image), b".jpg[Q=85]", ctypes.byref(buffer), ctypes.byref(length), None) == 0
jpeg = ctypes.string_at(buffer, length.value)
with open("truncated.jpg", "wb") as f:
    f.write(jpeg[: len(jpeg) // 2])

with open("not-an-image.html", "w") as f:
    f.write("<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
            "<body><h1>502 Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>\n")
open("empty.bin", "wb").close()
