"""find's scoring, rule by rule, on hand-made elements (no browser): one test per rule, the
normalising, CJK detection, role words, tie-breaks, and the index agreeing with plain scoring."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from pagesight.cjk import is_cjk
from pagesight.observe.elements import Element
from pagesight.observe.find import (
    RULES,
    WEIGHTS,
    Index,
    Query,
    Target,
    attribute_match,
    cjk_bigrams,
    cjk_chars,
    describe,
    exact_name,
    find,
    keywords,
    normalise,
    role_match,
    score,
    whole_query,
)
from pagesight.observe.markup import Markup


def el(
    role: str,
    name: str,
    /,
    *,
    tag: str = "button",
    text: str = "",
    element_id: int = 1,
    states: frozenset[str] = frozenset(),
    offscreen: bool = False,
    **attributes: str,
) -> Element:
    attrs = tuple((k.replace("_", "-"), v) for k, v in attributes.items())
    return Element(
        id=element_id,
        role=role,
        name=name,
        states=states,
        offscreen=offscreen,
        markup=Markup(tag=tag, attributes=attrs, text=text, path=(f"#e{element_id}",)),
    )


def fullwidth(text: str) -> str:
    """ASCII as typed in a CJK keyboard's full-width mode."""
    return "".join(
        "\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text
    )


def points(rule: object, query: str, element: Element) -> float:
    return rule(Query.parse(query), Target.of(element))  # type: ignore[operator, no-any-return]


# --- normalising and CJK ---------------------------------------------------------------------


def test_normalise_folds_width_case_and_space() -> None:
    assert normalise(f"  {fullwidth('SAVE Changes')} \n") == "save changes"
    assert normalise("ﾛｸﾞｲﾝ") == "ログイン"  # half-width katakana, voiced mark joined
    assert normalise("Straße") == "strasse"  # case-folded, not just lowered


@pytest.mark.parametrize(
    "ch",
    # Extension B (U+20000) and G (U+30000, the third plane) are ideographs as much as 中 is.
    [
        "中",
        "㐀",
        "豈",
        "。",
        fullwidth("!"),
        "ひ",
        "カ",
        "한",
        "ㄱ",
        "ᄀ",
        "\U00020000",
        "\U00030000",
    ],
    ids=lambda ch: f"U+{ord(ch):04X}",
)
def test_is_cjk_covers_every_named_block(ch: str) -> None:
    assert is_cjk(ch)


@pytest.mark.parametrize("ch", ["a", "é", "1", "Ω", " "])
def test_is_cjk_leaves_other_scripts_out(ch: str) -> None:
    assert not is_cjk(ch)


def test_query_takes_mixed_scripts_apart() -> None:
    q = Query.parse(f"Email地址 {fullwidth('search')}")
    assert q.text == "email地址 search"
    assert q.keywords == ("email", "search")
    assert q.bigrams == ("地址",)
    assert q.chars == ("地", "址")


def test_pure_role_words_leave_the_text_and_name_roles() -> None:
    q = Query.parse("用户名输入框")
    assert q.bigrams == ("用户", "户名")  # 输入 would match any "请输入…" placeholder
    assert {"textbox", "searchbox"} <= q.roles
    assert Query.parse("送信ボタン").roles == {"button"}
    assert Query.parse("검색 버튼").roles == {"button"}
    assert Query.parse("notifications tab").role_keywords == ("tab",)
    # A search-box word says what to look for as well as the kind of element.
    assert Query.parse("搜索框").bigrams == ("搜索", "索框")


# --- one test per rule -------------------------------------------------------------------------


def test_whole_query_as_a_substring() -> None:
    assert points(whole_query, "save chan", el("button", "Save changes")) == WEIGHTS.whole
    assert points(whole_query, "save changes", el("button", "Save")) == 0
    # Over any field, but never across two.
    assert points(whole_query, "q search", el("searchbox", "Find", name="q", type="search")) == 0


def test_cjk_bigrams_each_found_pair() -> None:
    assert points(cjk_bigrams, "站内搜索", el("button", "搜索")) == WEIGHTS.bigram
    both = el("textbox", "站内搜索", tag="input")
    assert points(cjk_bigrams, "站内搜索", both) == 3 * WEIGHTS.bigram  # 站内, 内搜, 搜索
    assert points(cjk_bigrams, "검색", el("button", "검색")) == WEIGHTS.bigram  # Hangul too


def test_cjk_chars_only_where_no_bigram_covers_them() -> None:
    assert points(cjk_chars, "搜寻", el("button", "搜索")) == WEIGHTS.char  # 搜 alone
    assert points(cjk_chars, "搜索", el("button", "搜索")) == 0  # covered by the bigram
    assert points(cjk_chars, "送信", el("button", "受信")) == WEIGHTS.char


def test_keywords_each_found_word_partial_words_too() -> None:
    assert points(keywords, "save draft", el("button", "Save changes")) == WEIGHTS.keyword
    assert points(keywords, "subscr", el("button", "Subscribe")) == WEIGHTS.keyword
    assert points(keywords, "the save", el("button", "Save")) == WEIGHTS.keyword  # stop word
    # A role word counts only as the element's very role or type.
    assert points(keywords, "button", el("button", "Save")) == WEIGHTS.keyword
    assert points(keywords, "button", el("link", "Button styles")) == 0


def test_attribute_match_in_aria_label_placeholder_name_or_id() -> None:
    for attribute in ("aria_label", "placeholder", "name", "id"):
        attrs: dict[str, Any] = {attribute: "email-address"}
        field = el("textbox", "Contact", tag="input", **attrs)
        assert points(attribute_match, "email", field) == WEIGHTS.attribute, attribute
    assert points(attribute_match, "email", el("textbox", "Email", tag="input")) == 0
    assert points(attribute_match, "email", el("img", "x", title="email")) == 0  # not title
    assert points(attribute_match, "搜索", el("textbox", "q", placeholder="站内搜索")) == 5


def test_attribute_match_wants_a_whole_word_of_an_id() -> None:
    # "edit" names the id "edit-note" or "editNote", not "note-editor": a word inside another
    # word of an identifier says nothing (it still counts as a keyword of the text).
    for id_ in ("edit-note", "editNote", "note_edit"):
        assert points(attribute_match, "edit", el("textbox", "x", id=id_)) == WEIGHTS.attribute
    editor = el("textbox", "New note", id="note-editor")
    assert points(attribute_match, "edit", editor) == 0
    assert points(keywords, "edit", editor) == WEIGHTS.keyword


def test_a_link_drawn_as_a_button_takes_the_role_word_button() -> None:
    link = Element(id=1, role="link", name="Edit", looks="button", markup=Markup(tag="a"))
    assert points(role_match, "the Edit button", link) == WEIGHTS.role
    assert points(exact_name, "the Edit button", link) == WEIGHTS.exact
    plain = Element(id=2, role="link", name="Edit", markup=Markup(tag="a"))
    assert points(role_match, "the Edit button", plain) == 0
    assert points(exact_name, "the Edit button", plain) == 0
    assert [m.element.id for m in find([plain, link], "the Edit button")] == [1, 2]


@pytest.mark.parametrize(
    ("query", "element"),
    [
        ("保存按钮", el("button", "保存")),
        ("送信ボタン", el("button", "送信")),
        ("검색 버튼", el("button", "검색")),
        ("save button", el("button", "Save")),
        ("搜索框", el("searchbox", "x", tag="input")),
        ("记住我复选框", el("checkbox", "记住我", tag="input")),
        ("email", el("textbox", "Contact", tag="input", type="email")),  # the input type
        ("checkbox", el("checkbox", "Remember me", tag="input")),  # the role itself
    ],
)
def test_role_match_by_role_word_role_or_type(query: str, element: Element) -> None:
    assert points(role_match, query, element) == WEIGHTS.role


def test_role_match_not_for_another_role() -> None:
    assert points(role_match, "保存按钮", el("link", "保存")) == 0
    assert points(role_match, "save link", el("button", "Save")) == 0


def test_score_is_the_sum_of_the_rules() -> None:
    q, t = Query.parse("search box"), Target.of(el("searchbox", "Search", placeholder="Search"))
    assert score(q, t) == sum(rule(q, t) for rule in RULES)
    # Not whole; keywords "search" (name, placeholder, role) and "box" (role "searchbox") +3
    # each; in the placeholder +5; a search box is a searchbox +3.
    assert score(q, t) == 2 * WEIGHTS.keyword + WEIGHTS.attribute + WEIGHTS.role


def test_the_design_example_scores() -> None:
    q = Query.parse("搜索框")
    main = el("searchbox", "搜索", tag="input", type="search", placeholder="搜索")
    icon = el("button", "搜索", aria_label="搜索")
    # 搜索 +4, in the placeholder +5, a search field +3; the icon button lacks the role.
    assert score(q, Target.of(main)) == WEIGHTS.bigram + WEIGHTS.attribute + WEIGHTS.role
    assert score(q, Target.of(icon)) == WEIGHTS.bigram + WEIGHTS.attribute


# --- ranking -------------------------------------------------------------------------------------


def _ranked(query: str, elements: list[Element]) -> list[int]:
    return [m.element.id for m in find(elements, query, top=len(elements))]


def test_ties_go_to_the_exact_name_first() -> None:
    elements = [el("button", "Menu items", element_id=1), el("button", "Menu", element_id=2)]
    # Both hold "menu" (whole +10, keyword +3); only one is named exactly that.
    assert _ranked("menu", elements) == [2, 1]


def test_ties_then_visible_then_enabled_then_in_viewport_then_document_order() -> None:
    hidden = Element(id=1, role="button", name="Go", states=frozenset({"aria-hidden"}))
    disabled = el("button", "Go", element_id=2, states=frozenset({"disabled"}))
    below = el("button", "Go", element_id=3, offscreen=True)
    first = el("button", "Go", element_id=4)
    second = el("button", "Go", element_id=5)
    assert _ranked("go", [hidden, disabled, below, first, second]) == [4, 5, 3, 2, 1]


def test_ties_go_to_a_given_name_before_a_hint_guessed_from_markup() -> None:
    hinted = Element(id=1, role="button", name="search", name_hint=True)
    given = Element(id=2, role="button", name="Search")
    assert _ranked("search button", [hinted, given]) == [2, 1]


def test_weights_live_in_one_place() -> None:
    assert {f for f in vars(WEIGHTS)} == {
        "whole",
        "bigram",
        "char",
        "keyword",
        "attribute",
        "role",
        "exact",
    }
    assert (WEIGHTS.whole, WEIGHTS.bigram, WEIGHTS.char) == (10, 4, 1)
    assert (WEIGHTS.keyword, WEIGHTS.attribute, WEIGHTS.role) == (3, 5, 3)
    assert WEIGHTS.exact == 8


def test_the_index_ranks_exactly_as_plain_scoring() -> None:
    """The index only skips elements that cannot score; every score and order is the same."""
    attribute_sets: list[dict[str, Any]] = [
        {},
        {"placeholder": "搜索"},
        {"aria_label": "Save draft"},
        {"type": "email"},
    ]
    elements = [
        el(role, name, element_id=i, **attrs)
        for i, (role, name, attrs) in enumerate(
            itertools.product(
                ["button", "link", "textbox", "checkbox", "tab"],
                ["Save", "保存", "検索する", "검색", "Search the site", "Next"],
                attribute_sets,
            )
        )
    ]
    index = Index(elements)
    for query in ["save", "保存按钮", "搜索框", "検索", "검색 버튼", "next link", "button",
                  "the", "email", "search tab", fullwidth("save")]:  # fmt: skip
        q = Query.parse(query)
        plain = sorted(
            ((s, i) for i, t in enumerate(index.targets) if (s := score(q, t)) > 0),
            key=lambda si: (-si[0], index.targets[si[1]].name != q.text, si[1]),
        )
        assert index.rank(q) == plain, query


def test_describe_is_one_line_with_markup_and_context() -> None:
    element = Element(
        id=3,
        role="searchbox",
        name="搜索",
        context="简体中文",
        markup=Markup(tag="input", attributes=(("type", "search"), ("placeholder", "搜索"))),
    )
    assert describe(element) == (
        'searchbox "搜索" <input type="search" placeholder="搜索"> in "简体中文"'
    )
    assert "\n" not in describe(el("button", "x" * 300))


def test_find_without_selectors_still_ranks() -> None:
    plain = Element(id=9, role="button", name="Save")
    (match,) = find([plain], "save")
    assert match.element is plain and match.selector is None and match.path == ()


def test_rule_exact_name() -> None:
    save = Target.of(el("button", "Save"))
    favourite = Target.of(el("button", "Save to favorites"))
    assert exact_name(Query.parse("Save"), save) == WEIGHTS.exact
    assert exact_name(Query.parse("the Save button"), save) == WEIGHTS.exact  # what it names
    assert exact_name(Query.parse("Save"), favourite) == 0
    # A named role must match too: a link named "登录" is not the "登录按钮" asked for.
    assert exact_name(Query.parse("登录按钮"), Target.of(el("link", "登录", tag="a"))) == 0


def test_an_exact_name_beats_a_mention_in_an_attribute() -> None:
    elements = [
        el("button", "♥", element_id=1, aria_label="Save to favorites"),
        el("button", "Save draft", element_id=2, id="save-draft"),
        el("button", "Save", element_id=3),
    ]
    for query in ("Save", "the Save button", fullwidth("SAVE")):
        assert find(elements, query)[0].element.id == 3, query


@pytest.mark.parametrize(("query", "name"), [("To", "To"), ("on", "On"), ("☰", "☰"), ("+", "+")])
def test_queries_of_stop_words_or_symbols_still_match(query: str, name: str) -> None:
    elements = [
        el("textbox", "From", tag="input", element_id=1),
        el("textbox", "To", tag="input", element_id=2),
        el("checkbox", "On", tag="input", element_id=3),
        el("button", "☰", element_id=4),
        el("button", "+", element_id=5),
    ]
    found = find(elements, query)
    assert found and found[0].element.name == name, found
