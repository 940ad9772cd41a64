"""Optical character recognition: the ``OcrEngine`` protocol and a Tesseract engine.

``TesseractOcr`` runs Debian's ``tesseract`` binary (5.x) on each screenshot. It does not
hand over the raw screenshot: Tesseract's layout analysis, made for scanned pages, drops short
labels on coloured bars. Instead the text lines found by :mod:`pagesight.vision.textlines` are
each cut out, made dark-on-light (white-on-blue buttons are inverted), stretched to full
contrast, scaled so that every line has the same height (small UI text gains most), and
stacked into one tall image that Tesseract reads as a plain block of lines. Word boxes are
mapped back to the screenshot's pixels.

Tesseract's recognition is nearly all of the time a screen takes (about 5 ms a line, plus
some 0.2 s to start and load its models), and one Tesseract uses one core. So a screen of more
than ``BATCH_LINES`` lines is stacked in several batches of consecutive lines, read by
Tesseracts running side by side. The batches depend on the screen alone, never on the
machine: Tesseract binarises a whole image at once, so a line's confidence (rarely its box)
moves a little with the other lines stacked with it, and a screen must read the same
everywhere.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from PIL import Image, ImageOps

from pagesight.errors import InvalidOption, OcrFailed, OcrNotFound, check_seconds
from pagesight.vision.images import decode_png
from pagesight.vision.textlines import Box, text_boxes

INSTALL_HINT = "install Debian's tesseract-ocr, tesseract-ocr-eng and tesseract-ocr-chi-sim"


@dataclass(frozen=True, kw_only=True)
class Word:
    """One word as OCR read it."""

    text: str
    confidence: float
    """0 to 100, as Tesseract reports it."""
    box: Box
    """x, y, width, height in pixels of the image that was read."""


class OcrEngine(Protocol):
    """Reads the words of a PNG image."""

    def read(self, png: bytes) -> list[Word]: ...


@dataclass(frozen=True, kw_only=True)
class _Slot:
    """Where one cut-out line sits in the stacked image, and where it came from."""

    source: Box
    top: int  # first row in the stacked image
    left: int
    height: int
    factor: float  # stacked pixels per source pixel


LINE_HEIGHT = 36  # each line's ink is scaled to about this many pixels: Tesseract's sweet spot
MAX_UPSCALE = 4.0
_MARGIN = 2  # source pixels kept around a line's ink (anti-aliased edges)
_GAP = LINE_HEIGHT // 2  # white rows between stacked lines
BATCH_LINES = 180
"""At most this many lines are stacked for one Tesseract run. A plain screen (the fixtures'
have 6 to 50 lines) is one batch; a dense table of 355 lines two, about 1 s each."""


class TesseractOcr:
    """:class:`OcrEngine` over the ``tesseract`` binary (English and Simplified Chinese).

    ``languages`` is Tesseract's ``-l`` argument; Chinese comes first because Tesseract tends
    to read a whole line in its first language, and with English first a line of Chinese prose
    came back as Latin letters (English lines read the same either way on our fixtures).
    ``timeout`` bounds one run in seconds. ``processes`` is how many Tesseracts may read the
    batches of one screen at once (None: one per CPU this process may use); it changes how
    long a dense screen takes, never what is read.
    Raises :class:`OcrNotFound` on the first ``read`` if the binary or a language is missing.
    """

    def __init__(
        self,
        *,
        languages: str = "chi_sim+eng",
        executable: str = "tesseract",
        timeout: float = 60.0,
        processes: int | None = None,
    ) -> None:
        # bool is an int to Python, but True is no count of seconds or processes: a slip.
        check_seconds("timeout", timeout)
        if processes is not None and (
            isinstance(processes, bool) or not isinstance(processes, int) or processes < 1
        ):
            raise InvalidOption(
                "processes", f"processes must be a whole number 1 or more, not {processes!r}"
            )
        self.languages = languages
        self.executable = executable
        self.timeout = timeout
        self.processes = processes or _cpus()
        self._binary: str | None = None

    def read(self, png: bytes) -> list[Word]:
        image = decode_png(png)
        boxes = text_boxes(image)
        if not boxes:
            return []
        self._check()  # once, before any run: a missing language is one error, not several
        pieces = _pieces(image, boxes)
        batches = _batches(pieces)
        if len(batches) == 1 or self.processes == 1:
            return [word for batch in batches for word in self._read_stacked(batch)]
        with ThreadPoolExecutor(min(self.processes, len(batches))) as pool:
            return [word for words in pool.map(self._read_stacked, batches) for word in words]

    def _read_stacked(self, pieces: Sequence[_Piece]) -> list[Word]:
        stacked, slots = _stack(pieces)
        return _map_back(self._run(stacked), slots)

    def _run(self, image: Image.Image) -> list[Word]:
        binary = self._check()
        # --psm 6: one uniform block of text, which the stacked lines are. One thread: on a
        # small machine Tesseract's OpenMP threads cost more than they save.
        env = {**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1")}
        command = [binary, "stdin", "stdout", "-l", self.languages, "--psm", "6", "tsv"]
        try:
            done = subprocess.run(
                command,
                input=_pgm(image),
                capture_output=True,
                timeout=self.timeout,
                env=env,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise OcrFailed(f"tesseract did not finish within {self.timeout:g} s") from exc
        except OSError as exc:  # not an executable after all
            raise OcrFailed(f"cannot run {binary}: {exc.strerror or exc}") from exc
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
            raise OcrFailed(f"tesseract failed (exit {done.returncode}): {why[-1]}")
        return parse_tsv(done.stdout.decode("utf-8", errors="replace"))

    def _check(self) -> str:
        """The binary's path, once it is known to have every language asked for."""
        if self._binary is not None:
            return self._binary
        binary = shutil.which(self.executable)
        if binary is None:
            raise OcrNotFound(
                f"tesseract not found (looked for {self.executable!r}); {INSTALL_HINT}"
            )
        try:
            listed = subprocess.run(
                [binary, "--list-langs"], capture_output=True, timeout=self.timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OcrNotFound(
                f"{binary} does not run as tesseract ({exc}); {INSTALL_HINT}"
            ) from exc
        # The first line is a heading ("List of available languages in ...").
        have = set(listed.stdout.decode(errors="replace").split()[1:])
        missing = [lang for lang in self.languages.split("+") if lang not in have]
        if missing:
            raise OcrNotFound(
                f"tesseract has no language data for {', '.join(missing)}; {INSTALL_HINT}"
            )
        self._binary = binary
        return binary


def _normalise(line: Image.Image) -> Image.Image:
    """Dark text on white at full contrast, whatever the line's colours were."""
    grey = line.convert("L")
    counts = grey.histogram()
    background = max(range(256), key=counts.__getitem__)
    if background < 128:  # light text on a dark fill
        grey = ImageOps.invert(grey)
    return ImageOps.autocontrast(grey)


@dataclass(frozen=True, kw_only=True)
class _Piece:
    """One line cut out of the screenshot, made ready for Tesseract."""

    image: Image.Image
    source: Box
    factor: float  # piece pixels per source pixel


def _pieces(image: Image.Image, boxes: Sequence[Box]) -> list[_Piece]:
    """Every line cut out, normalised and scaled, in the order of ``boxes``."""
    width, height = image.size
    pieces: list[_Piece] = []
    for x, y, w, h in boxes:
        left, upper = max(0, x - _MARGIN), max(0, y - _MARGIN)
        right, lower = min(width, x + w + _MARGIN), min(height, y + h + _MARGIN)
        factor = min(MAX_UPSCALE, max(1.0, LINE_HEIGHT / h))
        size = (round((right - left) * factor), round((lower - upper) * factor))
        piece = _normalise(image.crop((left, upper, right, lower)))
        if factor != 1.0:
            piece = piece.resize(size, Image.Resampling.LANCZOS)
        source = (left, upper, right - left, lower - upper)
        pieces.append(_Piece(image=piece, source=source, factor=factor))
    return pieces


def _batches(pieces: Sequence[_Piece]) -> list[Sequence[_Piece]]:
    """The pieces in as few batches of at most BATCH_LINES consecutive lines as will do, of
    (nearly) equal length."""
    count = -(-len(pieces) // BATCH_LINES)
    size = -(-len(pieces) // count)
    return [pieces[i : i + size] for i in range(0, len(pieces), size)]


def _stack(pieces: Sequence[_Piece]) -> tuple[Image.Image, list[_Slot]]:
    """The pieces one under the other on white."""
    slots: list[_Slot] = []
    top = _GAP
    for piece in pieces:
        slots.append(
            _Slot(
                source=piece.source,
                top=top,
                left=_GAP,
                height=piece.image.height,
                factor=piece.factor,
            )
        )
        top += piece.image.height + _GAP
    canvas = Image.new("L", (max(p.image.width for p in pieces) + 2 * _GAP, top), 255)
    for piece, slot in zip(pieces, slots, strict=True):
        canvas.paste(piece.image, (slot.left, slot.top))
    return canvas, slots


def _pgm(image: Image.Image) -> bytes:
    """The stacked image as binary PGM: Tesseract reads it as it reads PNG, and writing it
    takes a few milliseconds where compressing a tall PNG took a fifth of a second."""
    buffer = io.BytesIO()
    image.save(buffer, format="PPM")
    return buffer.getvalue()


def _cpus() -> int:
    """How many CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _map_back(words: list[Word], slots: Sequence[_Slot]) -> list[Word]:
    """Boxes in the stacked image -> boxes in the screenshot; words between lines dropped."""
    found: list[Word] = []
    for word in words:
        x, y, w, h = word.box
        middle = y + h / 2
        slot = next((s for s in slots if s.top <= middle < s.top + s.height), None)
        if slot is None:
            continue
        sx, sy, sw, sh = slot.source
        left = max(0.0, (x - slot.left) / slot.factor)
        top = max(0.0, (y - slot.top) / slot.factor)
        box = (
            sx + round(left),
            sy + round(top),
            max(1, min(round(w / slot.factor), sw - round(left))),
            max(1, min(round(h / slot.factor), sh - round(top))),
        )
        found.append(Word(text=word.text, confidence=word.confidence, box=box))
    return found


def parse_tsv(tsv: str) -> list[Word]:
    """Words from Tesseract's TSV output (level 5 rows with text)."""
    words: list[Word] = []
    for line in tsv.splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) != 12 or cells[0] != "5":
            continue
        text = cells[11].strip()
        confidence = float(cells[10])
        if not text or confidence < 0:
            continue
        left, top, width, height = (int(c) for c in cells[6:10])
        words.append(Word(text=text, confidence=confidence, box=(left, top, width, height)))
    return words
