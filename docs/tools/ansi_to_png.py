#!/usr/bin/env python3
"""Renders a `tmux capture-pane -e -p` dump (text with SGR colour codes) to a PNG, one
monospace cell per character: how docs/screenshot.png is made from a real run
(docs/tools/screenshot.sh). Needs Pillow and the DejaVu Sans Mono font (Debian:
python3-pil, fonts-dejavu-core).

usage: ansi_to_png.py SCREEN.ansi OUT.png [FONT_SIZE]
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
# Glyphs the monospace font lacks (the map's `⋮`), drawn from DejaVu Sans.
FALLBACK = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
FALLBACK_CHARS = "⋮"
BG = (24, 26, 31)
FG = (208, 208, 208)
# xterm's 16 colours.
BASIC = [
    (0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16),
    (36, 114, 200), (188, 63, 188), (17, 168, 205), (229, 229, 229),
    (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67),
    (59, 142, 234), (214, 112, 214), (41, 184, 219), (255, 255, 255),
]


def xterm256(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


def parse(text):
    """Rows of (char, fg, bg, bold)."""
    rows = []
    fg, bg, bold, reverse = None, None, False, False
    for line in text.split("\n"):
        row = []
        i = 0
        while i < len(line):
            m = re.match(r"\x1b\[([0-9;]*)m", line[i:])
            if m:
                codes = [int(c) if c else 0 for c in m.group(1).split(";")]
                k = 0
                while k < len(codes):
                    c = codes[k]
                    if c == 0:
                        fg, bg, bold, reverse = None, None, False, False
                    elif c == 1:
                        bold = True
                    elif c == 22:
                        bold = False
                    elif c == 7:
                        reverse = True
                    elif c == 27:
                        reverse = False
                    elif 30 <= c <= 37:
                        fg = BASIC[c - 30]
                    elif 90 <= c <= 97:
                        fg = BASIC[c - 90 + 8]
                    elif 40 <= c <= 47:
                        bg = BASIC[c - 40]
                    elif 100 <= c <= 107:
                        bg = BASIC[c - 100 + 8]
                    elif c == 39:
                        fg = None
                    elif c == 49:
                        bg = None
                    elif c in (38, 48) and k + 1 < len(codes):
                        if codes[k + 1] == 5 and k + 2 < len(codes):
                            colour = xterm256(codes[k + 2])
                            k += 2
                        elif codes[k + 1] == 2 and k + 4 < len(codes):
                            colour = tuple(codes[k + 2:k + 5])
                            k += 4
                        else:
                            colour = None
                        if c == 38:
                            fg = colour
                        else:
                            bg = colour
                    k += 1
                i += m.end()
                continue
            if line[i] == "\x1b":
                i += 1
                continue
            f, b = fg or FG, bg or BG
            if reverse:
                f, b = b, f
            row.append((line[i], f, b, bold))
            i += 1
        rows.append(row)
    while rows and not rows[-1]:
        rows.pop()
    return rows


def main():
    src, out = sys.argv[1], sys.argv[2]
    size = int(sys.argv[3]) if len(sys.argv) > 3 else 13
    rows = parse(open(src, encoding="utf-8").read())
    font = ImageFont.truetype(FONT, size)
    bold = ImageFont.truetype(BOLD, size)
    fallback = ImageFont.truetype(FALLBACK, size)
    cw = round(font.getlength("M"))
    ch = round(size * 1.3)
    width = max(len(r) for r in rows)
    img = Image.new("RGB", (width * cw + 16, len(rows) * ch + 16), BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows):
        for x, (c, f, b, is_bold) in enumerate(row):
            px, py = 8 + x * cw, 8 + y * ch
            if b != BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=b)
            if c in FALLBACK_CHARS:
                draw.text((px, py), c, fill=f, font=fallback)
            elif c != " ":
                draw.text((px, py), c, fill=f, font=bold if is_bold else font)
    # A palette keeps the file small.
    img.quantize(colors=64).save(out, optimize=True)


if __name__ == "__main__":
    main()
