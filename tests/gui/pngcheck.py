"""Reading a PNG without extra packages: its size and its pixels (8- or 16-bit RGB/RGBA,
non-interlaced, as gdk_texture_save_to_png writes them)."""
import struct
import zlib


def read_png(path):
    """(width, height, channels, bytes per sample, rows) with rows as lists of bytes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}[color]
    if interlace or depth not in (8, 16):
        raise ValueError("unsupported PNG layout")
    bps = depth // 8
    bpp = channels * bps
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, bps, rows


def distinct_colours(rows, channels, bps, step=7):
    """How many distinct pixel values a sample of every `step`-th pixel of every row has."""
    bpp = channels * bps
    seen = set()
    for row in rows[::step]:
        for x in range(0, len(row), bpp * step):
            seen.add(row[x:x + bpp])
    return len(seen)
