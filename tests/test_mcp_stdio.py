"""The MCP server over stdio, driven by the SDK's own client: one ``python -m pagesight mcp``
subprocess for the module, attached (``--cdp-url``) to the test's Chromium so a test can
read each page's real state beside what the tools answered."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from conftest import StaticServer
from mcp_support import McpClient, images, ok, ref, stdio_params, text
from pagesight import Browser
from pagesight.agent.registry import ToolRegistry
from pagesight.demo import OrbitApp
from pagesight.mcp import TOOLS, VISION_TOOLS


@pytest.fixture(scope="module")
def output_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "out"


@pytest.fixture(scope="module")
def mcp(browser: Browser, output_dir: Path) -> Iterator[McpClient]:
    # --confirm never: a test clicks "Pay now" to see it covered (test_confirm_mcp.py asks).
    params = stdio_params(
        "--cdp-url", browser.cdp_url, "--output-dir", str(output_dir), "--confirm", "never"
    )
    with McpClient(params) as client:
        yield client


def _tab(browser: Browser, url_part: str) -> Any:
    """The server's tab (in the test's Chromium) whose URL holds ``url_part``."""
    found = [p for p in browser.pages if url_part in p.url]
    assert found, f"no tab at {url_part}: {[p.url for p in browser.pages]}"
    return found[-1]


def _open(mcp: McpClient, url: str) -> str:
    """Navigate there and return the outline the answer carried."""
    return ok(mcp.call("browser_navigate", {"url": url}))


# The fixed map (Playwright MCP's names over the registry's tools), written out here so a
# tool dropped or renamed in the server's table is noticed.
PLAYWRIGHT_NAMES = {
    "browser_navigate": "navigate",
    "browser_navigate_back": "back",
    "browser_snapshot": "observe",
    "browser_find": "find_element",
    "browser_click": "click",
    "browser_hover": "hover",
    "browser_type": "input",
    "browser_fill_form": "fill_form",
    "browser_press_key": "press_key",
    "browser_select_option": "select",
    "browser_drag": "drag",
    "browser_file_upload": "upload",
    "browser_scroll": "scroll",
    "browser_batch": "batch",
    "browser_take_screenshot": "screenshot",
    "browser_tabs": "tabs",
    "browser_wait_for": "wait_for",
    "browser_handle_dialog": "handle_dialog",
}
VISION_NAMES = {
    "browser_mouse_click_xy": "click_xy",
    "browser_mouse_move_xy": "hover_xy",
    "browser_mouse_drag_xy": "drag_xy",
}


def test_the_tool_map_is_playwright_mcps() -> None:
    assert TOOLS == {**PLAYWRIGHT_NAMES, "browser_act": "act"}
    assert VISION_TOOLS == VISION_NAMES


CORE_NAMES = {
    "browser_navigate", "browser_snapshot", "browser_find", "browser_act", "browser_use_tool",
    "browser_close",
}  # fmt: skip


def test_core_lists_a_few_tools_under_playwright_names(mcp: McpClient) -> None:
    registry = {spec.name: spec for spec in ToolRegistry.discover().specs()}
    assert set(PLAYWRIGHT_NAMES.values()) <= set(registry)  # every mapped tool is built
    listed = {tool.name: tool for tool in mcp.tools()}
    assert set(listed) == CORE_NAMES
    for name in set(listed) & set(TOOLS):  # the same schema and description, renamed only
        assert listed[name].input_schema == registry[TOOLS[name]].input_schema, name
        assert listed[name].description == registry[TOOLS[name]].description, name
    # The rest is named in one line, the page tools browser_act does aside.
    reach = listed["browser_use_tool"].description or ""
    for name in ("browser_tabs", "browser_handle_dialog", "browser_fill_form"):
        assert name in reach
    assert "browser_click" not in reach and "browser_type" not in reach


def test_full_lists_every_tool_one_for_one(browser: Browser, output_dir: Path) -> None:
    registry = {spec.name: spec for spec in ToolRegistry.discover().specs()}
    params = stdio_params(
        "--cdp-url", browser.cdp_url, "--output-dir", str(output_dir), "--tools", "full"
    )
    with McpClient(params) as client:
        listed = {tool.name: tool for tool in client.tools()}
    assert set(listed) == {*PLAYWRIGHT_NAMES, *VISION_NAMES, "browser_close"}
    for name, tool in {**PLAYWRIGHT_NAMES, **VISION_NAMES}.items():
        assert listed[name].input_schema == registry[tool].input_schema, name
    assert listed["browser_click"].input_schema["required"] == ["ref"]


def test_orbit_crm_task_end_to_end(mcp: McpClient) -> None:
    with OrbitApp.start() as app:
        contacts = _open(mcp, app.url)
        assert "page now:" in contacts and 'link "Alice Chen"' in contacts
        snapshot = ok(mcp.call("browser_snapshot"))
        assert snapshot.startswith('page "Contacts · Orbit CRM"')
        alice = ref(snapshot, 'link "Alice Chen"')
        person = ok(mcp.call("browser_click", {"ref": alice, "element": "Alice Chen"}))
        assert person.startswith(f"click [{alice}] -> navigation")
        form = ok(mcp.call("browser_click", {"ref": ref(person, 'link "Edit"')}))
        # The page after it, whole (another document), its first line with the URL.
        origin = "/".join(app.url.split("/")[:3])
        assert form.splitlines()[1:3] == [
            "page now:",
            f'page "Edit contact: Alice Chen · Orbit CRM" {origin}/contacts/1/edit ready',
        ]
        title = ref(form, 'textbox "Job title"')
        typed = ok(mcp.call("browser_type", {"ref": title, "text": "Senior Software Engineer"}))
        # The effect names the change; the page part is not repeated for what it already said.
        assert typed.splitlines() == [
            f"input [{title}] -> value_change",
            f'  value [{title}] textbox "Job title": "Software Engineer" -> '
            '"Senior Software Engineer"',
        ]
        location = ref(form, 'combobox "Location"')
        chosen = ok(mcp.call("browser_select_option", {"ref": location, "values": ["New York"]}))
        assert f'value [{location}] combobox "Location": "London" -> "New York"' in chosen
        saved = ok(mcp.call("browser_click", {"ref": ref(form, 'button "Save"')}))
        assert "/contacts/1?saved=job_title,location ready" in saved
        assert "Saved: Job title → Senior Software Engineer; Location → New York" in saved
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]


def test_orbit_crm_task_with_the_core_tools(mcp: McpClient) -> None:
    with OrbitApp.start() as app:
        contacts = _open(mcp, app.url)
        alice = ref(contacts, 'link "Alice Chen"')
        person = ok(mcp.call("browser_act", {"steps": f"click [{alice}]"}))
        edit = ref(person, 'link "Edit"')
        form = ok(mcp.call("browser_act", {"steps": f"click [{edit}]"}))
        title, location = ref(form, 'textbox "Job title"'), ref(form, 'combobox "Location"')
        save = ref(form, 'button "Save"')
        steps = (
            f'type "Senior Software Engineer" into [{title}]\n'
            f'select "New York" in [{location}]\n'
            f"click [{save}]\n"
            'expect "Saved: Job title"'
        )
        saved = ok(mcp.call("browser_act", {"steps": steps}))
        assert "Saved: Job title → Senior Software Engineer; Location → New York" in saved
        # Every other tool, by name: its arguments first, then the call.
        about = ok(mcp.call("browser_use_tool", {"name": "browser_tabs"}))
        assert about.startswith("browser_tabs: List the open tabs")
        tabs = ok(
            mcp.call("browser_use_tool", {"name": "browser_tabs", "arguments": {"action": "list"}})
        )
        assert "/contacts/1?saved=job_title,location" in tabs
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]


def test_an_action_on_the_same_page_answers_with_what_changed(
    mcp: McpClient, server: StaticServer
) -> None:
    page = _open(mcp, server.url("replies-form.html"))
    assert "page now:" in page
    answer = ok(mcp.call("browser_click", {"ref": ref(page, 'button "New contact"')}))
    lines = answer.splitlines()
    assert "what changed on the page (the rest is as before):" in lines
    assert "page now:" not in lines
    assert "  + [" in answer and 'textbox "Email"' in answer


def test_a_stale_ref_is_a_typed_error_and_clicks_nothing(
    mcp: McpClient, server: StaticServer, browser: Browser
) -> None:
    page = _open(mcp, server.url("act-errors.html"))
    tab = _tab(browser, "act-errors.html")
    tab.playwright.evaluate("window.rerender()")  # the Save button is a new node now
    result = mcp.call("browser_click", {"ref": ref(page, 'button "Save"'), "element": "Save"})
    assert result.is_error
    assert text(result).startswith("error (stale_id): ")
    assert "Traceback" not in text(result)
    assert tab.playwright.evaluate("window.clicks.save") == 0


def test_a_covered_element_is_a_typed_error_naming_the_cover(
    mcp: McpClient, server: StaticServer, browser: Browser
) -> None:
    page = _open(mcp, server.url("act-errors.html"))
    tab = _tab(browser, "act-errors.html")
    tab.playwright.evaluate("window.showBackdrop()")
    result = mcp.call("browser_click", {"ref": ref(page, 'button "Pay now"')})
    assert result.is_error
    assert text(result).startswith("error (covered): ")
    assert "backdrop" in text(result)
    assert tab.playwright.evaluate("window.clicks.pay") == 0


def test_a_screenshot_with_marks_is_an_image_and_a_filename_stays_in_the_output_dir(
    mcp: McpClient, server: StaticServer, output_dir: Path
) -> None:
    _open(mcp, server.url("act-profile.html"))
    shot = mcp.call("browser_take_screenshot", {"marks": True, "filename": "profile"})
    assert text(shot).startswith("screenshot 1280x800 with marks")
    (png,) = images(shot)
    assert Image.open(io.BytesIO(png)).size == (1280, 800)
    saved = output_dir / "profile.png"
    assert saved.read_bytes() == png
    assert f"saved as {saved}" in text(shot)
    refusals = (
        "../escape",
        "sub/escape.png",
        "..\\escape",
        str(output_dir.parent / "escape.png"),
        ".hidden",
        "nul\0escape",
        "two\nlines",
        "gpj.\u202epng",  # shows as "gnp.jpg": a name that is not what it reads
        "x" * 252,  # 256 bytes with .png: past what a file system takes
    )
    for name in refusals:
        refused = mcp.call("browser_take_screenshot", {"filename": name})
        assert refused.is_error, name
        said = text(refused)
        assert said.startswith("error (invalid_option): filename must be a plain"), said
    assert not (output_dir.parent / "escape.png").exists()
    assert ok(mcp.call("browser_take_screenshot", {"filename": "x" * 251}))  # 255 bytes
    assert ok(mcp.call("browser_take_screenshot", {"filename": "Übersicht 概要"}))
    (output_dir / "taken.png").mkdir()  # a name the folder already holds, as a folder
    taken = mcp.call("browser_take_screenshot", {"filename": "taken"})
    assert taken.is_error
    assert text(taken).startswith(f"error (invalid_option): cannot save {output_dir}/taken.png")
    saved_names = sorted(p.name for p in output_dir.iterdir() if p.suffix == ".png" and p.is_file())
    assert saved_names == sorted(["profile.png", "x" * 251 + ".png", "Übersicht 概要.png"])


def test_two_tabs(mcp: McpClient, server: StaticServer) -> None:
    page = _open(mcp, server.url("act-links.html"))
    opened = ok(mcp.call("browser_click", {"ref": ref(page, 'link "Guide in a new tab"')}))
    assert "new_tab" in opened.splitlines()[0]
    listed = ok(mcp.call("browser_tabs", {"action": "list"}))
    tabs = [line for line in listed.splitlines()[1:] if "act-" in line]
    assert any(line.startswith("*") and "act-links.html" in line for line in tabs), listed
    new = next(line for line in tabs if "from=blank" in line)
    tab_id = int(new.split()[0 if not new.startswith("*") else 1])
    chosen = ok(mcp.call("browser_tabs", {"action": "select", "tab_id": tab_id}))
    assert any(line.startswith(f"* {tab_id} ") for line in chosen.splitlines()), chosen
    guide = ok(mcp.call("browser_snapshot"))
    assert "act-target.html?from=blank" in guide.splitlines()[0]
    closed = ok(mcp.call("browser_tabs", {"action": "close"}))
    assert f" {tab_id} " not in closed


def test_a_download_lands_in_the_output_dir(
    mcp: McpClient, server: StaticServer, output_dir: Path
) -> None:
    page = _open(mcp, server.url("act-links.html"))
    answer = ok(mcp.call("browser_click", {"ref": ref(page, 'link "Download report"')}))
    assert "download" in answer.splitlines()[0]
    saved = output_dir / "report.txt"
    assert saved.is_file()
    assert str(saved) in answer


def test_bad_calls_are_typed_tool_errors(mcp: McpClient) -> None:
    unknown = mcp.call("browser_fly", {})
    assert unknown.is_error and text(unknown).startswith("error (unknown_tool): ")
    bad = mcp.call("browser_click", {"ref": "Save"})
    assert bad.is_error and text(bad).startswith("error (invalid_arguments): click: ref: ")
    extra = mcp.call("browser_close", {"force": True})  # its schema takes no argument
    assert extra.is_error
    assert text(extra) == (
        "error (invalid_arguments): browser_close: force: Extra inputs are not permitted"
    )
    for result in (unknown, bad, extra):
        assert "Traceback" not in text(result)


def test_browser_close_then_the_next_call_starts_afresh(
    mcp: McpClient, server: StaticServer, browser: Browser
) -> None:
    _open(mcp, server.url("act-links.html?close=1"))
    closed = ok(mcp.call("browser_close"))
    assert closed == "browser closed; the next call starts a fresh one"
    # Attached: closing left the test's Chromium running, without the server's tab. The
    # test's own connection hears of the closed tab an event later, so it is given a moment.
    deadline = time.monotonic() + 10
    while [p for p in browser.pages if "close=1" in p.url] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in browser.pages if "close=1" in p.url]
    again = ok(mcp.call("browser_snapshot"))
    assert again.startswith('page "" about:blank')


def test_fill_form_fills_the_orbit_form_in_one_call(mcp: McpClient) -> None:
    with OrbitApp.start() as app:
        origin = "/".join(app.url.split("/")[:3])
        form = _open(mcp, f"{origin}/contacts/1/edit")
        title, location = ref(form, 'textbox "Job title"'), ref(form, 'combobox "Location"')
        fields = [
            {"ref": title, "value": "Staff Engineer", "element": "Job title"},
            {"ref": location, "value": "Tokyo", "element": "Location"},
        ]
        filled = ok(mcp.call("browser_fill_form", {"fields": fields}))
        # Each field's effect, once; the page's delta would only repeat the two values.
        assert filled.splitlines() == [
            f"input [{title}] -> value_change",
            f'  value [{title}] textbox "Job title": "Software Engineer" -> "Staff Engineer"',
            f"select [{location}] -> value_change",
            f'  value [{location}] combobox "Location": "London" -> "Tokyo"',
        ]
        saved = ok(mcp.call("browser_click", {"ref": ref(form, 'button "Save"')}))
        assert "Saved: Job title → Staff Engineer; Location → Tokyo" in saved
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert rows == [{"job_title": "Staff Engineer", "location": "Tokyo"}]


def test_wait_for_a_text_then_its_going(mcp: McpClient, server: StaticServer) -> None:
    page = _open(mcp, server.url("tools-wait-for.html"))
    ok(mcp.call("browser_click", {"ref": ref(page, 'button "Start import"')}))
    finished = ok(mcp.call("browser_wait_for", {"text": "Import finished"}))
    assert "Import finished" in finished
    gone = ok(mcp.call("browser_wait_for", {"text_gone": "Importing…"}))
    assert "Importing" in gone


def test_uploads_come_only_from_the_upload_dir(
    mcp: McpClient, server: StaticServer, output_dir: Path, browser: Browser, tmp_path: Path
) -> None:
    page = _open(mcp, server.url("act-upload.html"))
    resume = ref(page, 'button "Resume"')
    secret = tmp_path / "private.txt"  # a file of the machine, outside the upload dir
    secret.write_text("not for the page")
    for name in (str(secret), "../" + secret.name, str(output_dir / ".." / "x.txt")):
        refused = mcp.call("browser_file_upload", {"ref": resume, "files": [name]})
        assert refused.is_error
        assert text(refused).startswith("error (invalid_option): ")
        assert "outside the folder uploads may come from" in text(refused)
    tab = _tab(browser, "act-upload.html")
    assert tab.playwright.evaluate("window.uploads.resume.files") == []  # nothing was set
    (output_dir / "cv.txt").write_text("my cv")
    answer = ok(mcp.call("browser_file_upload", {"ref": resume, "files": ["cv.txt"]}))
    assert "files: cv.txt" in answer
    files = tab.playwright.evaluate("window.uploads.resume.files")
    assert files == [{"name": "cv.txt", "text": "my cv"}]
