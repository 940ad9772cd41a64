"""The pixel work of the vision side, held to what it found before it moved to numpy.

tests/golden/vision/ keeps screenshots of fixture pages (1280x800 CSS px; canvas-app also at
twice the pixels) and, beside each, a JSON golden recorded from the pure-Python code: the text
line boxes (``text_boxes``), the button-like box around each of a set of label boxes
(``enclosing_box``: the labels Tesseract read there, and every text line) and what
``read_screen`` made of the screen. The screenshots are inputs, so the first two checks need
no browser and no Tesseract; the third reads each screen with Tesseract.

Rewrite the JSON after an intended change with ``PAGESIGHT_UPDATE_GOLDEN=1`` and review the
diff like code.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from pagesight import InvalidOption
from pagesight.errors import OcrFailed
from pagesight.vision import TesseractOcr, Word, group_labels, read_screen
from pagesight.vision.boxes import enclosing_box, pixels_of
from pagesight.vision.images import decode_png
from pagesight.vision.textlines import text_boxes

GOLDEN = Path(__file__).parent / "golden" / "vision"
SCREENS = sorted(p.stem for p in GOLDEN.glob("*.png"))
UPDATE = bool(os.environ.get("PAGESIGHT_UPDATE_GOLDEN"))


class _ReadOnce(TesseractOcr):
    """Two Tesseracts side by side, each screen read once: the goldens below and the
    dense-screen check read the same screens, and a read is seconds of both cores."""

    def __init__(self) -> None:
        super().__init__(processes=2)
        self._words: dict[bytes, list[Word]] = {}

    def read(self, png: bytes) -> list[Word]:
        if png not in self._words:
            self._words[png] = super().read(png)
        return self._words[png]


@pytest.fixture(scope="module")
def ocr() -> TesseractOcr:
    return _ReadOnce()


def _record(name: str, ocr: TesseractOcr) -> dict[str, Any]:
    """Everything the golden holds, from the code as it is."""
    png = (GOLDEN / f"{name}.png").read_bytes()
    image = decode_png(png)
    lines = text_boxes(image)
    labels = [label.box for label in group_labels(ocr.read(png))]
    probes = sorted(set(labels) | set(lines))
    return {
        "lines": lines,
        "enclosing": [[probe, enclosing_box(pixels_of(image), probe)] for probe in probes],
        "items": [
            [item.role, item.name, item.bounds, item.confidence]
            for item in read_screen(png, ocr=ocr, scale=2.0 if name.endswith("@2x") else 1.0)
        ],
    }


def _write(path: Path, record: dict[str, Any]) -> None:
    # One entry a line, so that a change reads as a diff of the entries that changed.
    parts = []
    for key, entries in record.items():
        body = ",\n".join(f"    {json.dumps(entry, ensure_ascii=False)}" for entry in entries)
        parts.append(f'  "{key}": [\n{body}\n  ]')
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


def _golden(name: str, ocr: TesseractOcr) -> dict[str, Any]:
    path = GOLDEN / f"{name}.json"
    if UPDATE:
        _write(path, _record(name, ocr))
    golden: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return golden


def _boxes(entries: list[list[int]]) -> list[tuple[int, ...]]:
    return [tuple(entry) for entry in entries]


def test_every_screen_has_a_golden() -> None:
    assert "vision-dense-table@1x" in SCREENS and len(SCREENS) >= 7
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == SCREENS or UPDATE


@pytest.mark.parametrize("name", SCREENS)
def test_text_lines_are_found_where_they_were(name: str, ocr: TesseractOcr) -> None:
    golden = _golden(name, ocr)
    image = decode_png((GOLDEN / f"{name}.png").read_bytes())
    assert text_boxes(image) == _boxes(golden["lines"])


@pytest.mark.parametrize("name", SCREENS)
def test_button_boxes_are_found_where_they_were(name: str, ocr: TesseractOcr) -> None:
    golden = _golden(name, ocr)
    pixels = pixels_of(decode_png((GOLDEN / f"{name}.png").read_bytes()))
    found = [[probe, enclosing_box(pixels, tuple(probe))] for probe, _ in golden["enclosing"]]
    expected = [[probe, tuple(box) if box else None] for probe, box in golden["enclosing"]]
    assert found == expected
    # The goldens hold both answers, or they would not tell a broken search from a good one.
    assert any(box for _, box in expected) or name.startswith("marks-dense")


@pytest.mark.parametrize("name", SCREENS)
def test_the_screen_reads_as_it_did(name: str, ocr: TesseractOcr) -> None:
    """The labels and buttons a model reads: text, role, place and confidence."""
    golden = _golden(name, ocr)
    png = (GOLDEN / f"{name}.png").read_bytes()
    scale = 2.0 if name.endswith("@2x") else 1.0
    items = [
        [item.role, item.name, list(item.bounds), item.confidence]
        for item in read_screen(png, ocr=ocr, scale=scale)
    ]
    assert items == golden["items"]
    assert len(items) >= 5


def test_a_dense_screen_reads_the_same_however_many_tesseracts_read_it(
    ocr: TesseractOcr,
) -> None:
    """355 lines go in two batches read side by side; the batches are the screen's, not the
    machine's, so one process reads the same words (and confidences) as two (``ocr``: its
    read for the golden above)."""
    png = (GOLDEN / "vision-dense-table@1x.png").read_bytes()
    one = TesseractOcr(processes=1).read(png)
    assert len(one) > 300
    assert ocr.processes == 2
    assert ocr.read(png) == one


@pytest.mark.parametrize("bad", [0, -1, True, False, 2.5, "2"])
def test_processes_must_be_a_whole_number_one_or_more(bad: Any) -> None:
    # True is not "one process" and "2" is not two: both are a caller's slip, said as such
    # rather than taken (True) or raised from deep inside as a TypeError ("2").
    with pytest.raises(
        InvalidOption, match=f"processes must be a whole number 1 or more, not {bad!r}"
    ) as caught:
        TesseractOcr(processes=bad)
    assert caught.value.option == "processes"


@pytest.mark.parametrize("bad", [0, -2.0, float("nan"), True, "5"])
def test_timeout_must_be_a_positive_number(bad: Any) -> None:
    with pytest.raises(InvalidOption, match="timeout must be a positive number") as caught:
        TesseractOcr(timeout=bad)
    assert caught.value.option == "timeout"


def test_a_failing_tesseract_in_one_of_two_batches_is_one_ocr_failed(tmp_path: Path) -> None:
    """The dense screen's two batches run side by side; when one Tesseract fails, read raises
    that one failure as OcrFailed with Tesseract's own last line, not a pool error or a list."""
    wrapper = tmp_path / "tesseract"
    lock = tmp_path / "failed"
    real = shutil.which("tesseract")
    assert real is not None
    # A real tesseract behind a script that fails whichever recognition run starts first.
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" != "--list-langs" ] && mkdir "{lock}" 2>/dev/null; then\n'
        '  echo "Error: this batch failed" >&2; exit 3\n'
        "fi\n"
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    png = (GOLDEN / "vision-dense-table@1x.png").read_bytes()
    with pytest.raises(OcrFailed) as caught:
        TesseractOcr(executable=str(wrapper), processes=2).read(png)
    assert str(caught.value) == "tesseract failed (exit 3): Error: this batch failed"
    assert caught.value.exit_code == 1
