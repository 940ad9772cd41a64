"""Deterministic generator of a realistic 5,000-element page.

The body holds exactly `ELEMENTS` elements: a header with navigation, then sections
mixing headings, paragraphs, link lists, tables, forms, buttons and card grids, plus
the usual noise of real pages (an off-screen skip link, a collapsed menu, a clipped
carousel).  Run `python benchmarks/bigpage.py OUT.html` to write it out.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable

ELEMENTS = 5000
SEED = 5000

_WORD_LIST = """
account archive article author board browse budget calendar camera campaign career
channel chart cloud community company contact council course culture customer data
design device digital district energy event family feature finance forum garden
government guide health history holiday hotel house index insight island journal
kitchen language library market media member museum music network office online
order partner people photo planet policy portal press product profile project
question radio record region report research review river school science search
season service share shop site sport station story student study support system
team technology ticket tool travel update video village weather week world year
"""
WORDS = tuple(_WORD_LIST.split())

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}
header{background:#123;color:#fff;padding:8px 16px}
header nav a{color:#fff;margin-right:12px}
.skip{position:absolute;left:-9999px;top:0}
.menu{display:none}
main{padding:0 16px;max-width:1200px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}
.card{border:1px solid #ccc;border-radius:6px;padding:8px}
.card img{width:100%;height:60px;background:#ddd;display:block}
.carousel{overflow:hidden;white-space:nowrap;width:600px;height:40px}
.carousel a{display:inline-block;width:280px}
table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ccc;padding:2px 6px}
form{display:grid;grid-template-columns:repeat(3,auto);gap:6px;margin:8px 0}
footer{background:#eee;padding:8px 16px}
"""


class _Gen:
    def __init__(self) -> None:
        self.rng = random.Random(SEED)

    def words(self, lo: int, hi: int) -> str:
        n = self.rng.randint(lo, hi)
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def title(self, lo: int = 2, hi: int = 5) -> str:
        return self.words(lo, hi).capitalize()

    def href(self) -> str:
        return f"/{self.rng.choice(WORDS)}/{self.rng.randint(1, 9999)}"

    # Blocks: each returns a fragment of HTML; elements are counted afterwards.
    def heading_para(self) -> str:
        level = self.rng.choice((2, 3, 3, 4))
        paras = "".join(
            f"<p>{self.words(20, 60)} <a href='{self.href()}'>{self.words(1, 3)}</a> "
            f"{self.words(5, 20)}.</p>"
            for _ in range(self.rng.randint(1, 3))
        )
        return f"<h{level}>{self.title()}</h{level}>{paras}"

    def link_list(self) -> str:
        items = "".join(
            f"<li><a href='{self.href()}'>{self.title(1, 4)}</a></li>"
            for _ in range(self.rng.randint(5, 12))
        )
        return f"<h3>{self.title()}</h3><ul>{items}</ul>"

    def table(self) -> str:
        cols = self.rng.randint(3, 5)
        head = "".join(f"<th>{self.title(1, 2)}</th>" for _ in range(cols))
        rows = "".join(
            "<tr>"
            + f"<td><a href='{self.href()}'>{self.title(1, 3)}</a></td>"
            + "".join(f"<td>{self.rng.randint(0, 99999)}</td>" for _ in range(cols - 1))
            + "</tr>"
            for _ in range(self.rng.randint(4, 8))
        )
        return f"<table><caption>{self.title()}</caption><tr>{head}</tr>{rows}</table>"

    def form(self) -> str:
        n = self.rng.randint(1000, 9999)
        opts = "".join(f"<option>{self.title(1, 2)}</option>" for _ in range(4))
        return (
            f"<form action='/submit/{n}'><label for='q{n}'>{self.title(1, 2)}</label>"
            f"<input id='q{n}' name='q' placeholder='{self.words(1, 3)}'>"
            f"<label>{self.title(1, 2)} <select name='s{n}'>{opts}</select></label>"
            f"<textarea name='t{n}' placeholder='{self.words(2, 4)}'></textarea>"
            f"<label><input type='checkbox' name='c{n}'> {self.words(2, 4)}</label>"
            f"<input type='hidden' name='token' value='{n}'>"
            f"<button type='submit'>{self.title(1, 2)}</button></form>"
        )

    def buttons(self) -> str:
        btns = "".join(
            f"<button type='button'>{self.title(1, 2)}</button>"
            for _ in range(self.rng.randint(2, 4))
        )
        return f"<div class='toolbar' role='toolbar'>{btns}</div>"

    def cards(self) -> str:
        cards = "".join(
            f"<article class='card'><img alt='{self.words(2, 4)}'><h4>{self.title()}</h4>"
            f"<p>{self.words(8, 20)}</p><a href='{self.href()}'>Read more</a></article>"
            for _ in range(4)
        )
        return f"<div class='cards'>{cards}</div>"

    def carousel(self) -> str:
        links = "".join(f"<a href='{self.href()}'>{self.title(1, 3)}</a>" for _ in range(6))
        return f"<div class='carousel'>{links}</div>"

    def header(self) -> str:
        nav = "".join(f"<a href='{self.href()}'>{self.title(1, 2)}</a>" for _ in range(8))
        menu = "".join(f"<li><a href='{self.href()}'>{self.title(1, 2)}</a></li>" for _ in range(6))
        return (
            "<a class='skip' href='#main'>Skip to content</a>"
            f"<header><nav aria-label='Main'>{nav}</nav>"
            f"<button aria-expanded='false'>Menu</button><ul class='menu'>{menu}</ul>"
            "<form role='search' action='/search'><input type='search' name='q' "
            "aria-label='Search'><button>Go</button></form></header>"
        )


TAG = re.compile(r"<([a-z][a-z0-9]*)[\s>/]")


def count_elements(fragment: str) -> int:
    return len(TAG.findall(fragment))


def generate(elements: int = ELEMENTS) -> str:
    """Return the page HTML; its body has exactly `elements` elements (body excluded)."""
    g = _Gen()
    blocks: list[Callable[[], str]] = [
        g.heading_para,
        g.heading_para,
        g.link_list,
        g.table,
        g.form,
        g.buttons,
        g.cards,
        g.carousel,
    ]
    parts = [g.header(), "<main id='main'>"]
    footer = "</main><footer><p>Generated page for pagesight benchmarks.</p></footer>"
    # <main>, <footer> and <p> of the footer count too.
    count = count_elements(parts[0]) + 3
    section: list[str] = []
    while True:
        frag = g.rng.choice(blocks)()
        n = count_elements(frag) + (0 if section else 1)  # a new <section> wrapper counts
        if count + n > elements:
            break
        section.append(frag)
        count += n
        if len(section) == 6:
            parts.append("<section>" + "".join(section) + "</section>")
            section = []
    if section:
        parts.append("<section>" + "".join(section) + "</section>")
    # Top up to the exact count with a paragraph of emphasised words.
    rest = elements - count
    if rest > 0:
        spans = " ".join(f"<em>{g.rng.choice(WORDS)}</em>" for _ in range(rest - 1))
        parts.append(f"<p>{spans}</p>")
    parts.append(footer)
    body = "".join(parts)
    assert count_elements(body) == elements, count_elements(body)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Generated page: {elements} elements</title><style>{STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )


if __name__ == "__main__":
    out = generate()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(out)
    else:
        sys.stdout.write(out)
