#!/usr/bin/python3
"""Draw the Trellis kernel logo: a diagonal garden trellis with a leaf at each crossing.

Writes logo-32x32.png, logo-64x64.png and logo-svg.svg next to this script (or into the
directory given). Standard library only: the lattice is rasterised with anti-aliasing by
distance to the lines, and the PNG is written with zlib and struct; the SVG draws the same
shapes (JupyterLab's launcher prefers it).
"""
import math, os, struct, sys, zlib

WOOD = (139, 94, 52)
LEAF = (60, 157, 78)


def coverage(d, half_width):
    """How much of a pixel a line of half_width covers at distance d (1-pixel ramp)."""
    return max(0.0, min(1.0, half_width + 0.5 - d))


def pixel(x, y, size):
    u, v = (x + 0.5) / size, (y + 0.5) / size  # 0..1
    # rounded-square frame
    r, m = 0.16, 0.04
    cx, cy = min(max(u, m + r), 1 - m - r), min(max(v, m + r), 1 - m - r)
    outside = math.hypot(u - cx, v - cy) - r
    inside = coverage(outside * size, 0.0) if outside > 0 else 1.0
    if inside <= 0:
        return (0, 0, 0, 0)
    # two families of diagonal slats, four per side
    step = 0.25
    d1 = abs(((u + v) / step) % 1 - 0.5) * step / math.sqrt(2) * 2
    d2 = abs(((u - v) / step) % 1 - 0.5) * step / math.sqrt(2) * 2
    slat = max(coverage(d1 * size, 0.045 * size), coverage(d2 * size, 0.045 * size))
    # a leaf where slats cross: the crossings sit at half-steps
    fu, fv = (u / step) % 1 - 0.5, (v / step) % 1 - 0.5
    leaf = coverage(math.hypot(fu, fv) * step * size, 0.06 * size)
    bg = (250, 246, 235)
    colour = [bg[i] * (1 - slat) + WOOD[i] * slat for i in range(3)]
    colour = [colour[i] * (1 - leaf) + LEAF[i] * leaf for i in range(3)]
    border = coverage(abs(outside) * size, 0.03 * size) if outside > -0.06 else 0.0
    colour = [colour[i] * (1 - border) + WOOD[i] * border for i in range(3)]
    return tuple(int(round(c)) for c in colour) + (int(round(255 * inside)),)


def png(size):
    rows = b"".join(b"\0" + bytes(c for x in range(size) for c in pixel(x, y, size))
                    for y in range(size))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def svg():
    """The logo in a 100-unit square, as pixel() draws it: the frame, the slats (u + v and
    u - v at odd half-steps) clipped to it, a leaf in each diamond."""
    hexa = "#%02x%02x%02x"
    r, m, step = 16, 4, 25
    slats, leaves = [], []
    for k in range(-4, 9):  # lines u + v = c and u - v = c across the square
        c = (k + 0.5) * step
        slats.append('<line x1="%g" y1="0" x2="%g" y2="100"/>' % (c, c - 100))
        slats.append('<line x1="%g" y1="0" x2="%g" y2="100"/>' % (c - 100, c))
    for i in range(4):
        for j in range(4):
            leaves.append('<circle cx="%g" cy="%g" r="6"/>' % (step * (i + 0.5), step * (j + 0.5)))
    frame = 'x="%d" y="%d" width="%d" height="%d" rx="%d"' % (m, m, 100 - 2 * m, 100 - 2 * m, r)
    return "\n".join([
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="64" height="64">',
        '<clipPath id="frame"><rect %s/></clipPath>' % frame,
        '<g clip-path="url(#frame)">',
        '<rect x="0" y="0" width="100" height="100" fill="%s"/>' % (hexa % (250, 246, 235)),
        '<g stroke="%s" stroke-width="4.5">%s</g>' % (hexa % WOOD, "".join(slats)),
        '<g fill="%s">%s</g>' % (hexa % LEAF, "".join(leaves)),
        '</g>',
        '<rect %s fill="none" stroke="%s" stroke-width="6"/>' % (frame, hexa % WOOD),
        '</svg>', ""])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for size in (32, 64):
        with open(os.path.join(out, "logo-%dx%d.png" % (size, size)), "wb") as f:
            f.write(png(size))
    with open(os.path.join(out, "logo-svg.svg"), "w") as f:
        f.write(svg())


if __name__ == "__main__":
    main()
