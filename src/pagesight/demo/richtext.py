"""Keep a note's rich text to a few harmless tags: a note is shown as HTML, so whatever a
contenteditable produced (or a script posted) is rebuilt from an allow-list before it is saved."""

from __future__ import annotations

from html import escape
from html.parser import HTMLParser

ALLOWED = frozenset({"p", "div", "br", "b", "strong", "i", "em", "u", "ul", "ol", "li"})
VOID = frozenset({"br"})


class _Cleaner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []
        self.text = 0  # characters of visible text kept

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED:
            return  # the tag goes, its text stays
        self.out.append(f"<{tag}>")  # attributes never survive: no handlers, no styles
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open:
                closing = self.open.pop()
                self.out.append(f"</{closing}>")
                if closing == tag:
                    break

    def handle_data(self, data: str) -> None:
        self.out.append(escape(data, quote=False))
        self.text += len(data.strip())


def clean(html: str) -> tuple[str, bool]:
    """The note's HTML with only the allowed tags, and whether it holds any text."""
    cleaner = _Cleaner()
    cleaner.feed(html)
    cleaner.close()
    cleaner.out.extend(f"</{tag}>" for tag in reversed(cleaner.open))
    return "".join(cleaner.out), cleaner.text > 0
