"""The two model-facing tool texts: ``page_perceive`` (every element, with its selector) and
``find_element`` (the best matches for a query).

Both read an observation taken with ``include={"selector"}`` (as ``page.find`` takes it); labels
are English by default and Chinese with ``lang="zh"``. An element shows as
``[id] tag/role "name" key="attributes"`` and its selector path, ``>>`` at each iframe or
shadow root, so a model can quote either the id or the selector.
"""

from __future__ import annotations

from typing import Literal

from pagesight.errors import InvalidOption
from pagesight.observe.elements import Element
from pagesight.observe.find import Match, check_query
from pagesight.observe.observation import Observation

Lang = Literal["en", "zh"]

_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "count": "interactive elements: {n}",
        "selector": "selector",
        "left_out": "… {n} more elements left out; use find_element(query) to find one",
        "query": 'query: "{q}"   matches: {n}',
        "best": "best",
        "score": "score",
        "none": "no element matches; try other words, or page_perceive to list them all",
    },
    "zh": {
        "count": "可交互元素: {n}",
        "selector": "选择器",
        "left_out": "… 还有 {n} 个元素未列出；请用 find_element(query) 查找",  # noqa: RUF001
        "query": '查询: "{q}"   匹配: {n}',
        "best": "最佳",
        "score": "得分",
        "none": "没有匹配的元素；换个说法，或用 page_perceive 列出全部元素",  # noqa: RUF001
    },
}

# Attributes worth a model's tokens in page_perceive (the id is in the selector when it is used).
_SHOWN_ATTRIBUTES = ("type", "name", "placeholder", "aria-label", "title", "alt", "data-testid")


def _labels(lang: str) -> dict[str, str]:
    if lang not in _LABELS:
        raise InvalidOption("lang", f"lang must be 'en' or 'zh', not {lang!r}")
    return _LABELS[lang]


def selector_text(el: Element) -> str:
    """The element's selector path in one line (empty without ``include={"selector"}``)."""
    return " >> ".join(el.markup.path) if el.markup else ""


def element_line(el: Element, selector_label: str = "selector") -> str:
    """``[12] input/searchbox "搜索" placeholder="搜索" value="x"  selector: input[name="q"]``"""
    kind = f"{el.markup.tag}/{el.role}" if el.markup and el.markup.tag != el.role else el.role
    parts = [f"[{el.id}] {kind}"]
    if el.name:
        parts.append(el.quoted_name)
    if el.markup is not None:
        if el.markup.text:
            parts.append(f'text="{el.markup.text}"')
        parts += [f'{k}="{v}"' for k, v in el.markup.attributes if k in _SHOWN_ATTRIBUTES]
    if el.value:
        parts.append(f'value="{el.value}"')
    states = sorted(el.states - {"focused"})
    if states:
        parts.append(f"[{', '.join(states)}]")
    line = " ".join(parts)
    selector = selector_text(el)
    return f"{line}  {selector_label}: {selector}" if selector else line


def page_perceive(obs: Observation, *, max_chars: int = 6000, lang: Lang = "en") -> str:
    """How many elements can be acted on, then one line each (id, tag/role, text, key
    attributes, selector), cut to ``max_chars`` with a last line saying how many were left out
    and to use ``find_element``."""
    labels = _labels(lang)
    if max_chars < 1:
        raise InvalidOption("max_chars", f"max_chars must be a positive number, not {max_chars}")
    elements = obs.elements
    header = labels["count"].format(n=len(elements))
    lines = [element_line(el, labels["selector"]) for el in elements]
    used = len(header)
    kept = 0
    for i, line in enumerate(lines):
        rest = len(lines) - (i + 1)
        # The last line, if any are left out, must fit too.
        footer = 1 + len(labels["left_out"].format(n=rest)) if rest else 0
        if used + 1 + len(line) + footer > max_chars:
            break
        used += 1 + len(line)
        kept += 1
    out = [header, *lines[:kept]]
    if kept < len(lines):
        out.append(labels["left_out"].format(n=len(lines) - kept))
    # The header and the last line stay whole even under a limit smaller than they are: a
    # sentence cut in half would tell a model nothing.
    return "\n".join(out)


def find_element(obs: Observation, query: str, *, top: int = 5, lang: Lang = "en") -> str:
    """The query, how many elements match it, the best match with its selector and score, then
    the runners-up (at most ``top`` in all)."""
    labels = _labels(lang)
    check_query(query, top)
    every = obs.find(query, top=max(len(obs.elements), 1))  # to say how many match at all
    head = labels["query"].format(q=query, n=len(every))
    if not every:
        return f"{head}\n{labels['none']}"
    return "\n".join([head, *_rows(every[:top], labels)])


def _rows(matches: list[Match], labels: dict[str, str]) -> list[str]:
    ranks = [labels["best"], *(str(n) for n in range(2, len(matches) + 1))]
    selectors = [f"[{m.element.id}] {m.full_selector or ''}".rstrip() for m in matches]
    rank_w = max(len(r) for r in ranks)
    sel_w = max(len(s) for s in selectors)
    desc_w = max(len(m.description) for m in matches)
    return [
        f"{r:<{rank_w}}   {s:<{sel_w}}   {m.description:<{desc_w}}   {labels['score']} {m.score:g}"
        for r, s, m in zip(ranks, selectors, matches, strict=True)
    ]
