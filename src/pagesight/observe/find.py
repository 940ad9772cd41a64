"""find: rank the elements of an observation against a natural-language query.

"搜索框", "the Save button", "검색 버튼", "save" typed full-width: the query and every element's
text are normalised the same way (NFKC, case-folded, white space collapsed), then a few small
rules add points, with the weights in :data:`WEIGHTS`:

* the whole query found in any field                       ``whole``
* each CJK bigram of the query found (搜索, 按钮)             ``bigram``
* each CJK character found outside a found bigram          ``char``
* each non-CJK keyword found                                ``keyword``
* any of those inside aria-label, placeholder, name or id  ``attribute`` (once); a Latin
  word as a whole word there ("edit" in ``edit-note``, ``editNote``, not ``note-editor``)
* the element's role or input type named in the query       ``role`` (once); role words in
  English, Chinese, Japanese and Korean count (button/按钮/ボタン/버튼, …); a link drawn as a
  button (``Element.looks``) is a button too
* its whole name is what the query names ("Save" for "the Save button")  ``exact``: not in the
  issue's list, added because an attribute mention otherwise beat the element named so

The fields are the element's shown text, accessible name, aria-label, placeholder, name, id,
title, alt, role and input type. Ties go to an element whose whole name is the query, then to
a name the page gave over a hint guessed from markup, then visible, enabled, in-viewport ones,
then to document order. ``observe(focus=…)`` ranks with the same :class:`Query`.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pagesight.cjk import is_cjk
from pagesight.errors import InvalidOption
from pagesight.observe.elements import Element
from pagesight.observe.markup import Markup
from pagesight.observe.roles import DATE_ROLES


@dataclass(frozen=True)
class Weights:
    """Every weight of every rule, in one place."""

    whole: float = 10
    bigram: float = 4
    char: float = 1
    keyword: float = 3
    attribute: float = 5
    role: float = 3
    exact: float = 8
    """Beyond the issue's rules: an element whose whole name is what the query names ("Save"
    for "the Save button") outranks one that merely mentions it in an attribute
    (aria-label "Save to favorites", id "save-draft")."""


WEIGHTS = Weights()

# --- normalising and telling CJK apart ----------------------------------------------------------


def normalise(text: str) -> str:
    """NFKC (full-width letters and digits to ASCII, half-width katakana to full), case-folded,
    white space collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _is_cjk_letter(ch: str) -> bool:
    # Punctuation (、。「」) is CJK too, but a match on it says nothing.
    return is_cjk(ch) and unicodedata.category(ch)[0] in "LN"


# Between the fields of a target: not white space, so normalising keeps it, and no query holds
# it (parsing takes it out), so no match spans two fields.
_SEP = "\0"

# Words that say nothing about which element is meant ("click the save button").
_STOP_WORDS = frozenset({"a", "an", "the", "to", "of", "for", "on", "in", "at", "and", "or"})


def _words(spelled: str, roles: frozenset[str]) -> dict[str, frozenset[str]]:
    return dict.fromkeys(spelled.split("|"), roles)


# Role words a query may use, in English, Chinese, Japanese and Korean, and the roles they name.
# All but the search-field words say only what kind of element is meant, so they are taken out
# of the query's text: in "用户名输入框" the 输入 must not match a placeholder "请输入验证码".
_SEARCH_FIELD_WORDS = "search box|searchbox|search field|搜索框|搜尋框|検索ボックス|検索欄|검색창"
_FIELDS = frozenset({"textbox", "searchbox", "combobox", "spinbutton", *DATE_ROLES})
_ROLE_WORDS: dict[str, frozenset[str]] = {
    **_words("button|btn|按钮|按鈕|ボタン|버튼", frozenset({"button"})),
    **_words("link|链接|連結|鏈接|リンク|링크", frozenset({"link"})),
    **_words("input|field|textbox|text box|输入框|输入|文本框|入力|入力欄", _FIELDS),
    **_words("テキストボックス|입력|입력란|입력창", _FIELDS),
    **_words(_SEARCH_FIELD_WORDS, _FIELDS),
    **_words(
        "checkbox|check box|复选框|勾选框|複選框|チェックボックス|체크박스",
        frozenset({"checkbox", "switch"}),
    ),
    **_words("radio|单选框|单选|ラジオ|라디오", frozenset({"radio"})),
    **_words(
        "dropdown|drop-down|select|combobox|下拉框|下拉|选择框|プルダウン|セレクト|드롭다운",
        frozenset({"combobox", "listbox"}),
    ),
    **_words("switch|toggle|开关|スイッチ|스위치", frozenset({"switch", "checkbox"})),
    **_words("tab|标签页|タブ|탭", frozenset({"tab"})),
    **_words(
        "menu item|menuitem|菜单项|メニュー項目|메뉴 항목",
        frozenset({"menuitem", "menuitemcheckbox", "menuitemradio"}),
    ),
    **_words("slider|滑块|スライダー|슬라이더", frozenset({"slider"})),
    **_words("date picker|datepicker", frozenset(DATE_ROLES)),
    **_words("iframe|frame|框架|フレーム|프레임", frozenset({"iframe"})),
}
_LATIN_ROLE_WORDS = {
    w: re.compile(rf"(?<!\w){re.escape(w)}(?!\w)") for w in _ROLE_WORDS if not is_cjk(w[0])
}
# Longest first, so 输入框 goes before 输入 can split it.
_PURE_ROLE_WORDS = sorted(
    set(_ROLE_WORDS) - set(_SEARCH_FIELD_WORDS.split("|")), key=len, reverse=True
)
_PURE_LATIN_ROLE_WORDS = frozenset(_PURE_ROLE_WORDS) & set(_LATIN_ROLE_WORDS)


# --- the query ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """A query taken apart once, to be scored against many targets."""

    text: str
    bigrams: tuple[str, ...]
    chars: tuple[str, ...]
    keywords: tuple[str, ...]
    roles: frozenset[str]
    """Roles named by role words in the query."""
    role_keywords: tuple[str, ...] = ()
    """The words of its Latin role words ("tab" in "notifications tab"): found only in an
    element's role or type, never in its text."""
    atoms: tuple[str, ...] = ()
    """The smallest pieces of text it looks for (CJK letters, keywords). Each is a part of the
    whole query, so an element holding none of them can score only on its role (role_match,
    and whole_query or keywords where the query is all role words: "button")."""
    core: str = ""
    """What the query names, without role and stop words: "save" in "the Save button"."""

    @classmethod
    def parse(cls, query: str) -> Query:
        text = normalise(query.replace(_SEP, " "))
        bigrams: list[str] = []
        chars: list[str] = []
        keywords: list[str] = []
        spare: list[str] = []  # stop words and bare symbols: kept if nothing else is left
        for token in _without_role_words(text).split():
            # A token may mix scripts ("email地址"): CJK runs give bigrams, the rest a keyword.
            for run in _runs(token):
                if _is_cjk_letter(run[0]):
                    chars.extend(run)
                    bigrams.extend(run[i : i + 2] for i in range(len(run) - 1))
                    continue
                word = _strip_punctuation(run)
                if word and word not in _STOP_WORDS:
                    keywords.append(word)
                else:
                    spare.append(word or run)  # "to", "on"; "☰", "+"
        if not chars and not keywords:  # a query that is all stop words or symbols: "To", "☰"
            keywords = spare
        named = [word for word in _ROLE_WORDS if _names(text, word)]
        role_keywords = [
            part for word in named if word in _PURE_LATIN_ROLE_WORDS for part in word.split()
        ]
        return cls(
            text=text,
            bigrams=tuple(dict.fromkeys(bigrams)),
            chars=tuple(dict.fromkeys(chars)),
            keywords=tuple(dict.fromkeys(keywords)),
            roles=frozenset(role for word in named for role in _ROLE_WORDS[word]),
            role_keywords=tuple(dict.fromkeys(role_keywords)),
            atoms=tuple(dict.fromkeys((*chars, *keywords))),
            core=" ".join(
                w for w in _without_role_words(text).split() if w not in _STOP_WORDS or not keywords
            ),
        )


def _runs(token: str) -> list[str]:
    """A token cut into runs of CJK letters and runs of anything else."""
    runs: list[str] = []
    for ch in token:
        if runs and _is_cjk_letter(runs[-1][0]) == _is_cjk_letter(ch):
            runs[-1] += ch
        else:
            runs.append(ch)
    return runs


def _strip_punctuation(word: str) -> str:
    start, end = 0, len(word)
    while start < end and unicodedata.category(word[start])[0] in "PS":
        start += 1
    while end > start and unicodedata.category(word[end - 1])[0] in "PS":
        end -= 1
    return word[start:end]


def _without_role_words(text: str) -> str:
    for word in _PURE_ROLE_WORDS:
        pattern = _LATIN_ROLE_WORDS.get(word)
        text = text.replace(word, " ") if pattern is None else pattern.sub(" ", text)
    return text


def _names(text: str, word: str) -> bool:
    """Does the query use this role word? CJK words anywhere, Latin ones as whole words."""
    pattern = _LATIN_ROLE_WORDS.get(word)
    return word in text if pattern is None else pattern.search(text) is not None


# --- what a query is scored against -------------------------------------------------------------

_ATTRIBUTE_FIELDS = ("aria-label", "placeholder", "name", "id")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_OTHER_FIELDS = ("title", "alt")
_PLAIN_ROLES = frozenset({"text", "paragraph", "generic", ""})


class Scorable(Protocol):
    """An Element or a tree Node: what find and focus rank."""

    @property
    def role(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def markup(self) -> Markup | None: ...
    @property
    def looks(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Target:
    """An element's searchable fields, normalised once."""

    text: str
    """Every field: shown text, name, attributes, role, type."""
    attributes: str
    """aria-label, placeholder, name and id."""
    role: str
    type: str
    name: str
    kind: tuple[str, ...] = ()
    """Role, input type and the role it is drawn as: where a role word of the query is looked
    for."""
    looks: str = ""
    """The role it is drawn as, where that differs from its own (a link drawn as a button)."""

    @classmethod
    def of(cls, item: Scorable) -> Target:
        markup = item.markup
        # Plain text has no role a query could mean ("text field" is not every paragraph).
        role = "" if item.role in _PLAIN_ROLES else item.role
        got = dict(markup.attributes) if markup else {}
        attrs = [_CAMEL.sub(" ", got.get(a, "")) for a in _ATTRIBUTE_FIELDS]
        kind = got.get("type", "")
        shown = markup.text if markup else ""
        looks = item.looks or ""
        other = [got.get(a, "") for a in _OTHER_FIELDS]
        return cls(
            text=normalise(_SEP.join((shown, item.name, *attrs, *other, role, kind))),
            attributes=normalise(_SEP.join(attrs)) if got else "",
            role=role,
            type=normalise(kind),
            name=normalise(item.name),
            kind=(role, normalise(kind), looks),
            looks=looks,
        )


# --- the rules: each one small, named and tested on its own ------------------------------------


def whole_query(q: Query, t: Target) -> float:
    """The whole query as a substring of any field."""
    return WEIGHTS.whole if q.text in t.text else 0


def cjk_bigrams(q: Query, t: Target) -> float:
    """Each pair of adjacent CJK letters of the query (搜索, 按钮) found."""
    if not q.bigrams:
        return 0
    return WEIGHTS.bigram * sum(1 for b in q.bigrams if b in t.text)


def cjk_chars(q: Query, t: Target) -> float:
    """Each single CJK letter found, as a fallback: only those outside a found bigram."""
    if not q.chars:
        return 0
    covered = "".join(b for b in q.bigrams if b in t.text)
    return WEIGHTS.char * sum(1 for c in q.chars if c not in covered and c in t.text)


def keywords(q: Query, t: Target) -> float:
    """Each non-CJK word of the query found (so partial words match: "subscr"); the words of
    role words ("tab", "button") only as the element's very role or type."""
    found = sum(1 for w in q.keywords if w in t.text)
    return WEIGHTS.keyword * (found + sum(1 for w in q.role_keywords if w in t.kind))


def attribute_match(q: Query, t: Target) -> float:
    """A match inside aria-label, placeholder, name or id: what authors write to name a control."""
    a = t.attributes
    if not a:
        return 0
    # Latin words as whole words of the attribute: "edit" names id "edit-note", not
    # "note-editor" (CJK has no word breaks: its bigrams count anywhere).
    hit = (
        _word_in(q.text, a)
        or any(b in a for b in q.bigrams)
        or any(_word_in(w, a) for w in q.keywords)
    )
    return WEIGHTS.attribute if hit else 0


def _word_in(word: str, text: str) -> bool:
    """``word`` as a whole word of ``text`` ("edit" in "edit-note", not in "note editor")."""
    return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", text) is not None


def role_match(q: Query, t: Target) -> float:
    """The role or input type named by the query: a role word in any of the four languages, or
    a keyword equal to the role or type ("checkbox", "email")."""
    if not t.role:
        return 0
    hit = (
        t.role in q.roles
        or t.looks in q.roles  # "the Edit button" for a link drawn as a button
        or t.role in q.keywords
        or (t.type != "" and t.type in q.keywords)
    )
    return WEIGHTS.role if hit else 0


def exact_name(q: Query, t: Target) -> float:
    """The element's whole name is the query, or what it names ("save" in "the Save button"),
    and it is of the role the query names, if it names one (a link "登录" is not "登录按钮")."""
    if q.roles and t.role not in q.roles and t.looks not in q.roles:
        return 0
    return WEIGHTS.exact if t.name and t.name in (q.text, q.core) else 0


RULES: tuple[Callable[[Query, Target], float], ...] = (
    whole_query,
    cjk_bigrams,
    cjk_chars,
    keywords,
    attribute_match,
    role_match,
    exact_name,
)


def score(q: Query, t: Target) -> float:
    """The sum of the rules; most targets share no piece with the query and stop at once."""
    if t.role not in q.roles and t.looks not in q.roles and not any(a in t.text for a in q.atoms):
        return 0
    total = 0.0
    for rule in RULES:
        total += rule(q, t)
    return total


# --- ranking elements ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Match:
    """An element that matches a query, how well, and how to find it again."""

    element: Element
    score: float
    selector: str | None
    """A CSS selector matching exactly this element in its own document or shadow root
    (``None`` if the observation was taken without ``include={"selector"}``)."""
    path: tuple[str, ...] = ()
    """Selectors of the iframes and shadow hosts to pass first, from the top document: an
    iframe opens its document, any other host its shadow root. Empty for most elements."""
    description: str

    @property
    def full_selector(self) -> str | None:
        """The path and the selector in one line, ``>>`` at each iframe or shadow root."""
        return None if self.selector is None else " >> ".join((*self.path, self.selector))

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.element.id,
            "role": self.element.role,
            "name": self.element.name,
        }
        if self.element.name_hint:  # as in Element.to_dict: the name is a guess from markup
            out["name_hint"] = True
        out.update(
            score=self.score,
            selector=self.selector,
            path=list(self.path),
            description=self.description,
        )
        return out


def check_query(query: str, top: int) -> Query:
    """The parsed query; :class:`InvalidOption` for an empty one or a ``top`` under 1."""
    if not isinstance(query, str) or not normalise(query):
        raise InvalidOption("query", f"the query must name something to look for, not {query!r}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidOption("top", f"top must be a positive whole number, not {top!r}")
    return Query.parse(query)


class Index:
    """Elements made ready for many queries: normalised once, and all their text in one string
    so that the few elements holding a piece of the query are found at C speed."""

    def __init__(self, elements: Sequence[Element]) -> None:
        self.elements = tuple(elements)
        self.targets = tuple(Target.of(el) for el in self.elements)
        self._text = "\1".join(t.text for t in self.targets)
        self._starts: list[int] = []
        at = 0
        for t in self.targets:
            self._starts.append(at)
            at += len(t.text) + 1
        self._by_role: dict[str, list[int]] = {}
        for i, t in enumerate(self.targets):
            self._by_role.setdefault(t.role, []).append(i)
            if t.looks:  # a link drawn as a button is a candidate for "the … button" too
                self._by_role.setdefault(t.looks, []).append(i)
        # The tie-breaks after the exact name: a name the page gave (not one guessed from its
        # markup), visible, enabled, in the viewport.
        self._ties = tuple(
            (
                el.name_hint,
                el.hidden_in_container or "aria-hidden" in el.states,
                "disabled" in el.states,
                el.offscreen,
            )
            for el in self.elements
        )

    def rank(self, q: Query) -> list[tuple[float, int]]:
        """(score, index) of every element that scores, best first: by score, then an exact
        name, then a given (not hinted) name, then visible, enabled and in-viewport elements,
        then document order."""
        targets = self.targets
        if not q.atoms and not q.roles:  # stop words only ("the"): nothing to narrow by
            scored = [(s, i) for i, t in enumerate(targets) if (s := score(q, t)) > 0]
        else:
            hits = set().union(*(self._holding(a) for a in q.atoms))
            scored = [(s, i) for i in hits if (s := score(q, targets[i])) > 0]
            # An element sharing no piece of text with the query scores on its role alone
            # (see Query.atoms): three rules, not six, for the hundreds of links on a page.
            for i in {i for r in q.roles for i in self._by_role.get(r, ())} - hits:
                t = targets[i]
                s = whole_query(q, t) + keywords(q, t) + role_match(q, t)
                if s > 0:
                    scored.append((s, i))
        ties, targets = self._ties, self.targets
        scored.sort(key=lambda si: (-si[0], targets[si[1]].name != q.text, ties[si[1]], si[1]))
        return scored

    def _holding(self, piece: str) -> set[int]:
        """The elements whose text holds ``piece``."""
        found: set[int] = set()
        text, starts = self._text, self._starts
        pos = text.find(piece)
        while pos != -1:
            i = bisect_right(starts, pos) - 1
            found.add(i)
            if i + 1 == len(starts):
                break
            pos = text.find(piece, starts[i + 1])  # on to the next element
        return found


def find(
    elements: Sequence[Element],
    query: str,
    *,
    top: int = 5,
    index: Index | None = None,
) -> list[Match]:
    """The ``top`` elements that best match ``query``, best first. ``index`` is the elements'
    :class:`Index` when already made (an Observation keeps one)."""
    q = check_query(query, top)
    if index is None:
        index = Index(elements)
    return [_match(index.elements[i], s) for s, i in index.rank(q)[:top]]


def _match(el: Element, points: float) -> Match:
    path = el.markup.path if el.markup else ()
    return Match(
        element=el,
        score=points,
        selector=path[-1] if path else None,
        path=path[:-1],
        description=describe(el),
    )


def describe(el: Element) -> str:
    """One line: role and name as the outline shows them, the markup, and the context.

    ``searchbox "搜索" <input type="search" name="q" placeholder="搜索"> in "简体中文"``
    """
    parts = [f"{el.role} {el.quoted_name}" if el.name else el.role]
    if el.markup is not None:
        attrs = "".join(f' {k}="{_short(v)}"' for k, v in el.markup.attributes)
        parts.append(f"<{el.markup.tag}{attrs}>")
    if el.context:
        parts.append(f'in "{_short(el.context)}"')
    return " ".join(parts)


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
