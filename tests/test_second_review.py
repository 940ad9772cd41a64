"""Defects from the second review pass, each pinned on a small realistic page."""

from __future__ import annotations

from pagesight import Page
from support import one


def test_names_do_not_split_words_at_inline_markup(page: Page) -> None:
    page.playwright.set_content(
        "<a href='/returns'><span class='cap'>R</span>eturn policy</a>"
        "<a href='/p'>Price $<b>99</b>.<small>99</small></a>"
        "<p>1 Main St<br>Springfield<br>USA</p>"
    )
    obs = page.observe()
    one(obs, "Return policy", "link")
    one(obs, "Price $99.99", "link")
    assert "1 Main St Springfield USA" in obs.text()


def test_a_switch_whose_checkbox_hides_inside_its_label(page: Page) -> None:
    page.playwright.set_content(
        "<style>.switch input{opacity:0;width:0;height:0}"
        ".slider{display:inline-block;width:40px;height:20px;background:#ccc;cursor:pointer}</style>"
        "<label class='switch'><input type='checkbox' aria-label='Bluetooth' checked>"
        "<span class='slider'></span></label>"
    )
    obs = page.observe()
    assert "checked" in one(obs, "Bluetooth", "checkbox").states
    assert not [e for e in obs.elements if e.role == "clickable"]  # the knob is the control


def test_a_carousel_track_translated_off_its_box_still_shows_its_slide(page: Page) -> None:
    page.playwright.set_content(
        "<style>.viewport{overflow:hidden;width:600px}"
        ".track{display:flex;width:100%;transform:translate3d(-600px,0,0)}"
        ".slide{flex:0 0 600px}</style>"
        "<div class='viewport'><div class='track'>"
        "<div class='slide'><h3>Summer sale</h3><a href='/s'>Shop summer</a></div>"
        "<div class='slide'><h3>Autumn sale</h3><a href='/a'>Shop autumn</a></div>"
        "</div></div>"
    )
    obs = page.observe()
    one(obs, "Shop autumn", "link")
    assert "Shop summer" not in obs.text()  # translated out of the clipping viewport


def test_current_page_and_script_modals(page: Page) -> None:
    page.playwright.set_content(
        "<nav aria-label='Pagination'><a href='?p=1'>1</a>"
        "<a href='?p=2' aria-current='page'>2</a></nav>"
        "<button>Add to cart</button>"
        "<div style='position:fixed;inset:0;background:rgba(0,0,0,.5)'></div>"
        "<div role='dialog' aria-modal='true' aria-label='Your privacy' "
        "style='position:fixed;top:20px;left:20px;background:#fff'>"
        "<button>Accept</button></div>"
    )
    obs = page.observe()
    one(obs, "Accept", "button")
    assert "Add to cart" not in obs.text()  # behind a modal a person cannot reach it
    assert not [e for e in obs.elements if e.name == "2"]  # also behind the modal
    page.playwright.evaluate("document.querySelector('[role=dialog]').remove()")
    after = page.observe()
    assert "current" in one(after, "2", "link").states
