"""Draw the app's icons: static/img/icon.svg and the PNGs the web app manifest names.

Pure standard library (zlib + struct PNG writer), so the icons are made by the project and
can be redrawn by anyone: `python scripts/make_icons.py`. The spade is built from a few
shapes (two circles, two triangles and a stem) drawn the same way in the SVG and in the
PNGs, on the site header's felt green (static/css/site.css: --felt).

- icon-192.png, icon-512.png: a rounded square with transparent corners ("any");
- icon-maskable-512.png: full-bleed felt with the spade inside the central 80 % circle that
  every mask keeps ("maskable");
- apple-touch-icon.png (180x180): full-bleed, since iOS rounds the corners itself.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "static" / "img"
FELT = (0x0F, 0x51, 0x32)
SPADE = (0xFF, 0xFF, 0xFF)
GOLD = (0xD4, 0xA7, 0x2C)
CORNER = 0.22  # the rounded square's corner radius, as a share of the side
SAMPLES = 4  # supersampling per axis, for smooth edges

# The spade in a unit square, y downwards.
CIRCLES = [(0.375, 0.56, 0.135), (0.625, 0.56, 0.135)]
TRIANGLES = [
    ((0.5, 0.16), (0.245, 0.585), (0.755, 0.585)),  # the point and the shoulders
    ((0.375, 0.56), (0.625, 0.56), (0.5, 0.70)),  # the gap between the lobes
    ((0.5, 0.58), (0.40, 0.84), (0.60, 0.84)),  # the stem
]
RING = (0.5, 0.5, 0.455, 0.02)  # a thin gold ring: centre x, y, radius, half width


def _in_triangle(x: float, y: float, a: tuple, b: tuple, c: tuple) -> bool:
    def side(p: tuple, q: tuple) -> float:
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])

    d1, d2, d3 = side(a, b), side(b, c), side(c, a)
    return not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))


def _in_spade(x: float, y: float) -> bool:
    if any((x - cx) ** 2 + (y - cy) ** 2 <= r * r for cx, cy, r in CIRCLES):
        return True
    return any(_in_triangle(x, y, *triangle) for triangle in TRIANGLES)


def _in_rounded_square(x: float, y: float) -> bool:
    cx = min(max(x, CORNER), 1 - CORNER)
    cy = min(max(y, CORNER), 1 - CORNER)
    return (x - cx) ** 2 + (y - cy) ** 2 <= CORNER * CORNER


def _colour(x: float, y: float, *, rounded: bool, scale: float) -> tuple[int, ...] | None:
    if rounded and not _in_rounded_square(x, y):
        return None
    # The spade scaled about the centre (the maskable icon keeps it in the safe zone).
    sx, sy = 0.5 + (x - 0.5) / scale, 0.5 + (y - 0.5) / scale
    if _in_spade(sx, sy):
        return SPADE
    cx, cy, r, w = RING
    if rounded and abs(math.hypot(x - cx, y - cy) - r) <= w:
        return GOLD
    return FELT


def render(size: int, *, rounded: bool, scale: float) -> bytes:
    rows = bytearray()
    step = 1 / (size * SAMPLES)
    for py in range(size):
        rows.append(0)  # PNG filter type 0 for the row
        for px in range(size):
            total = [0, 0, 0, 0]
            for j in range(SAMPLES):
                for i in range(SAMPLES):
                    x = (px * SAMPLES + i + 0.5) * step
                    y = (py * SAMPLES + j + 0.5) * step
                    colour = _colour(x, y, rounded=rounded, scale=scale)
                    if colour is None:
                        continue
                    total[0] += colour[0]
                    total[1] += colour[1]
                    total[2] += colour[2]
                    total[3] += 255
            n = SAMPLES * SAMPLES
            alpha = total[3] / n
            if alpha:
                # Colours averaged over the covered samples only (straight alpha).
                covered = total[3] / 255
                rows += bytes(round(c / covered) for c in total[:3]) + bytes([round(alpha)])
            else:
                rows += b"\0\0\0\0"
    return png(size, size, bytes(rows))


def png(width: int, height: int, raw_rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw_rows, 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    def hexa(colour: tuple[int, ...]) -> str:
        return "#" + "".join(f"{c:02x}" for c in colour)

    def n(value: float) -> str:
        return f"{value * 512:g}"

    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">',
        f'<rect width="512" height="512" rx="{n(CORNER)}" fill="{hexa(FELT)}"/>',
        f'<circle cx="{n(RING[0])}" cy="{n(RING[1])}" r="{n(RING[2])}" fill="none" '
        f'stroke="{hexa(GOLD)}" stroke-width="{n(RING[3] * 2)}"/>',
        f'<g fill="{hexa(SPADE)}">',
        *(f'<circle cx="{n(cx)}" cy="{n(cy)}" r="{n(r)}"/>' for cx, cy, r in CIRCLES),
        *(
            '<polygon points="' + " ".join(f"{n(x)},{n(y)}" for x, y in triangle) + '"/>'
            for triangle in TRIANGLES
        ),
        "</g>",
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon.svg").write_text(svg())
    icons = {
        "icon-192.png": render(192, rounded=True, scale=1.0),
        "icon-512.png": render(512, rounded=True, scale=1.0),
        "icon-maskable-512.png": render(512, rounded=False, scale=0.75),
        "apple-touch-icon.png": render(180, rounded=False, scale=0.85),
    }
    for name, data in icons.items():
        (OUT / name).write_bytes(data)
        print(f"static/img/{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
