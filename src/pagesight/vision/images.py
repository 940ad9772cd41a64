"""Screenshots in and out: PNG bytes to an RGB image and back."""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError

from pagesight.errors import InvalidOption


def decode_png(png: bytes) -> Image.Image:
    """An RGB image from PNG bytes (any format Pillow reads); InvalidOption if unreadable."""
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise InvalidOption("png", f"not a readable image ({len(png)} bytes): {exc}") from exc
    return image.convert("RGB")


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes of an image."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
