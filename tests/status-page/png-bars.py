#!/usr/bin/env python3
"""The solid bars of a screenshot: png-bars.py FILE.png RRGGBB...

Decodes the PNG (8-bit RGB or RGBA, not interlaced: what Chromium's --screenshot writes) with
the standard library only, finds the horizontal runs of at least 6 pixels of exactly one of the
given colours, merges the same run on consecutive rows into a rectangle, and prints one
"RRGGBB X Y WIDTH HEIGHT" line per rectangle (top-left corner, in pixels), top to bottom.
Exact colours only: text is anti-aliased, a bar's fill is not."""
import struct
import sys
import zlib


def rows_of(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png-bars: %s is not a PNG" % path)
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit("png-bars: %s: only 8-bit RGB(A), not interlaced" % path)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw, stride, prev, out = zlib.decompress(idat), width * bpp, None, []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = up[i], up[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        out.append([bytes(line[i:i + 3]).hex() for i in range(0, stride, bpp)])
    return out


def main():
    want = {c.lower() for c in sys.argv[2:]}
    open_rects, done = {}, []
    for y, row in enumerate(rows_of(sys.argv[1])):
        runs, x = set(), 0
        while x < len(row):
            end = x
            while end < len(row) and row[end] == row[x]:
                end += 1
            if row[x] in want and end - x >= 6:
                runs.add((row[x], x, end - x))
            x = end
        for key in list(open_rects):
            if key not in runs:
                done.append(key + open_rects.pop(key))
        for key in runs:
            open_rects.setdefault(key, (y, 0))
            open_rects[key] = (open_rects[key][0], open_rects[key][1] + 1)
    done += [key + v for key, v in open_rects.items()]
    for colour, x, w, y, h in sorted(done, key=lambda r: (r[3], r[1])):
        print(colour, x, y, w, h)


main()
