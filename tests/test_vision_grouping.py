"""Words -> lines -> labels, CJK joining, and Tesseract's TSV: pure functions on given words."""

from __future__ import annotations

from pagesight.cjk import is_cjk, is_unspaced
from pagesight.vision.grouping import group_labels, group_lines, join_words, split_line
from pagesight.vision.ocr import Word, parse_tsv


def word(text: str, x: int, y: int, w: int, h: int = 12) -> Word:
    return Word(text=text, confidence=95.0, box=(x, y, w, h))


def test_cjk_characters_join_without_spaces() -> None:
    assert join_words(["保", "存"]) == "保存"
    assert join_words(["保 存"]) == "保存"  # a space inside one word too
    assert join_words(["简体", "中", "文"]) == "简体中文"
    assert join_words(["送", "信", "する"]) == "送信する"  # Japanese kana too
    assert join_words(["保存", "。"]) == "保存。"


def test_latin_and_mixed_text_keep_their_spaces() -> None:
    assert join_words(["Width:", "240"]) == "Width: 240"
    assert join_words(["Hello", "世界"]) == "Hello 世界"
    assert join_words(["版本", "2.0"]) == "版本 2.0"
    assert join_words(["검색", "버튼"]) == "검색 버튼"  # Korean is written with spaces
    assert join_words(["  File ", "", "Edit"]) == "File Edit"


def test_unspaced_scripts_are_chinese_and_japanese() -> None:
    # U+FF0C: a full-width comma; U+20000 and U+30000: ideographs of extensions B and G.
    assert all(map(is_unspaced, "保すカ\uff0c\U00020000\U00030000"))
    assert not any(map(is_unspaced, "a검1 "))
    # One table serves find too: Hangul is CJK there, but Korean is written with spaces.
    assert is_cjk("검") and all(map(is_cjk, "保すカ\uff0c\U00020000"))


def test_a_toolbar_line_splits_at_wide_gaps() -> None:
    # "File   Edit   View  Width: 240" as drawn on the canvas fixture (15 px text).
    line = [
        word("File", 31, 15, 23, 13),
        word("Edit", 93, 15, 26, 13),
        word("View", 157, 15, 33, 13),
        word("Width:", 246, 16, 42, 12),
        word("240", 292, 17, 22, 11),
    ]
    labels = split_line(line)
    assert [label.text for label in labels] == ["File", "Edit", "View", "Width: 240"]
    assert labels[3].box == (246, 16, 68, 12)
    assert labels[3].confidence == 95.0


def test_a_sentence_stays_one_label() -> None:
    line = [word("Last", 41, 85, 28), word("action:", 73, 83, 48), word("none", 125, 87, 34, 8)]
    assert [label.text for label in split_line(line)] == ["Last action: none"]


def test_lines_form_by_vertical_overlap_and_read_left_to_right() -> None:
    words = [
        word("second", 10, 40, 50),
        word("line", 70, 41, 30),
        word("First", 10, 10, 40),
        word("保", 60, 8, 16, 16),  # a taller CJK glyph on the first line
        word("存", 77, 8, 16, 16),
    ]
    lines = group_lines(words)
    assert [[w.text for w in line] for line in lines] == [["First", "保", "存"], ["second", "line"]]
    assert [label.text for label in group_labels(words)] == ["First 保存", "second line"]


def test_lines_close_together_stay_apart() -> None:
    # Two 12 px lines 14 px apart overlap by nothing; a word 4 px lower overlaps by 8 px.
    words = [word("top", 0, 0, 20), word("bottom", 0, 14, 40), word("low", 24, 4, 20)]
    assert [[w.text for w in line] for line in group_lines(words)] == [
        ["top", "low"],
        ["bottom"],
    ]


def test_empty_input() -> None:
    assert group_labels([]) == []
    assert split_line([]) == []
    assert join_words([]) == ""


def test_parse_tesseract_tsv() -> None:
    tsv = (
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight"
        "\tconf\ttext\n"
        "1\t1\t0\t0\t0\t0\t0\t0\t800\t600\t-1\t\n"
        "4\t1\t1\t1\t1\t0\t10\t10\t200\t20\t-1\t\n"
        "5\t1\t1\t1\t1\t1\t10\t10\t40\t20\t96.5\tFile\n"
        "5\t1\t1\t1\t1\t2\t60\t10\t20\t20\t91\t保\n"
        "5\t1\t1\t1\t1\t3\t90\t10\t20\t20\t93\t \n"
    )
    assert parse_tsv(tsv) == [
        Word(text="File", confidence=96.5, box=(10, 10, 40, 20)),
        Word(text="保", confidence=91.0, box=(60, 10, 20, 20)),
    ]
