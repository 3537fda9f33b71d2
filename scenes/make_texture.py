"""Writes scenes/flag.png, the flag's 64x48 texture: three stripes and a checker band,
so orientation and seams are easy to see. Python's standard library only."""
import struct, zlib, os

W, H = 64, 48

def pixel(x, y):
    # Rows top to bottom: blue, white, red stripes; a checker band on the left (the pole side).
    if x < 12:
        return (20, 20, 20) if ((x // 4) + (y // 4)) % 2 == 0 else (240, 200, 40)
    stripe = y * 3 // H
    return [(30, 60, 170), (245, 245, 245), (200, 30, 40)][stripe]

rows = b"".join(b"\x00" + bytes(c for x in range(W) for c in pixel(x, y)) for y in range(H))
def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flag.png")
open(out, "wb").write(png)
print(out, len(png), "bytes")
