"""Draws synthetic@1x.png, a screen made to probe the pixel rules at their edges.

Boxes whose fill or border differs from the ground by a few levels either side of the
tolerance (in every channel, or in one), dithered fills, boxes split in two fills (a tie for
the commonest colour), rules beside text, labels at the screen's edge. Drawn once
(``python tests/golden/vision/synthetic.py``) and kept as a file, so that it does not depend
on how a later Pillow draws.
"""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WORDS = ["Save", "Open", "Ok", "Width: 240", "Cancel", "File", "Run all", "Next", "42", "Undo"]


def draw() -> Image.Image:
    rng = random.Random(10)
    image = Image.new("RGB", (1280, 800), (255, 255, 255))
    pen = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=14)
    for row in range(16):
        for col in range(10):
            x, y = 4 + col * 128, 2 + row * 50
            w, h = rng.randint(60, 120), rng.randint(24, 46)
            ground = tuple(rng.choice((255, 240, 200, 30)) for _ in range(3))
            delta = rng.choice((0, 12, 15, 16, 17, 18, 24, 60))
            shifted = rng.choice(((0, 1, 2), (0,), (1,), (2,)))  # some colours differ in one
            fill = tuple(max(0, c - delta) if i in shifted else c for i, c in enumerate(ground))
            kind = rng.randrange(5)
            pen.rectangle((x, y, x + w, y + h), fill=ground)
            if kind == 0:  # a bordered box
                border = tuple(max(0, c - rng.choice((14, 16, 17, 40))) for c in fill)
                pen.rectangle((x + 3, y + 3, x + w - 3, y + h - 3), fill=fill, outline=border)
            elif kind == 1:  # a fill only
                pen.rectangle((x + 3, y + 3, x + w - 3, y + h - 3), fill=fill)
            elif kind == 2:  # two fills: left and right half
                pen.rectangle((x + 3, y + 3, x + w // 2, y + h - 3), fill=fill)
                pen.rectangle((x + w // 2, y + 3, x + w - 3, y + h - 3), fill=ground)
            elif kind == 3:  # a dithered fill
                for px in range(x + 3, x + w - 2):
                    for py in range(y + 3, y + h - 2):
                        noise = rng.randint(-10, 10)
                        pen.point((px, py), tuple(max(0, min(255, c + noise)) for c in fill))
            else:  # a rule under the text
                pen.line((x + 2, y + h - 4, x + w - 2, y + h - 4), fill=(0, 0, 0), width=1)
            ink = (0, 0, 0) if sum(fill) > 380 else (255, 255, 255)
            text = rng.choice(WORDS)
            dx, dy = rng.randint(-2, 12), rng.randint(4, 12)
            pen.text((x + 8 + dx, y + dy), text, fill=ink, font=font)
    # Labels touching the screen's edges.
    pen.text((0, 786), "Edge", fill=(0, 0, 0), font=font)
    pen.text((1240, 0), "Top", fill=(0, 0, 0), font=font)
    return image


if __name__ == "__main__":
    draw().save(Path(__file__).with_name("synthetic@1x.png"))
