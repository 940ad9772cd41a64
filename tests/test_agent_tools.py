"""The tool registry: schemas derived from signatures and docstrings, arguments checked
before a tool runs, typed errors, and a tool added by dropping a file in a folder."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Browser, InvalidOption
from pagesight.agent import Session, Tool, ToolRegistry, ToolResult
from pagesight.agent.tool import parse_docstring
from support import one

BROWSER_TOOLS = {
    "page_perceive", "find_element", "observe", "click", "input", "select", "hover",
    "press_key", "scroll", "drag", "upload", "navigate", "back", "batch", "screenshot",
    "tabs", "done", "load_skill", "wait_for", "fill_form", "handle_dialog", "click_xy",
    "hover_xy", "drag_xy", "act", "use_tool",
}  # fmt: skip


def _session(page: Any, browser: Browser, registry: ToolRegistry) -> Session:
    return Session(browser=browser._browser, page=page._page, registry=registry)


def _call(browser: Browser, session: Session, tool: str, /, **arguments: Any) -> ToolResult:
    return browser._loop.run(session.registry.call(tool, arguments, session))


def test_the_registry_holds_every_browser_tool_one_a_file() -> None:
    registry = ToolRegistry.discover()
    assert set(registry.names) == BROWSER_TOOLS
    page_actions = {t.name for t in registry if t.page_action}
    assert page_actions == {
        "click", "input", "select", "hover", "press_key", "scroll", "drag", "upload",
        "navigate", "back",
    }  # fmt: skip
    files = {p.stem for p in Path("src/pagesight/agent/tools").glob("[!_]*.py")}
    assert files == BROWSER_TOOLS


def test_the_schema_a_model_sees_comes_from_the_signature_and_docstring() -> None:
    spec = next(s for s in ToolRegistry.discover().specs() if s.name == "click")
    assert spec.description.startswith("Click an element; the answer is the effect it had")
    schema = spec.input_schema
    assert schema["type"] == "object"
    assert schema["required"] == ["ref"]
    assert schema["additionalProperties"] is False
    props = schema["properties"]
    assert list(props) == ["ref", "element", "double_click", "button", "hold_seconds"]
    assert props["ref"] == {
        "type": "integer",
        "description": "The element's id, the number in brackets in the latest observation.",
    }
    assert props["button"]["enum"] == ["left", "right", "middle"]
    assert props["button"]["default"] == "left"
    assert props["double_click"] == {
        "type": "boolean",
        "default": False,
        "description": "Click twice (to edit a cell, select a word).",
    }
    # A continued line of the Args section belongs to its parameter.
    scroll = ToolRegistry.discover().get("scroll").input_schema["properties"]["ref"]
    assert scroll["description"].endswith(
        "with one it is the container to scroll. None scrolls the page."
    )
    assert "title" not in json.dumps(schema)  # pydantic's titles cost tokens and say nothing


JSON_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}


def _check_schema(node: Any, defs: dict[str, Any], where: str) -> None:
    """``node`` is a JSON Schema a model's tool-calling API takes: known types, enums of
    values, every ``$ref`` defined, every property described, ``required`` naming them."""
    assert isinstance(node, dict), where
    if "$ref" in node:
        assert node["$ref"].removeprefix("#/$defs/") in defs, where
        return
    if "anyOf" in node:
        for i, part in enumerate(node["anyOf"]):
            _check_schema(part, defs, f"{where}.anyOf[{i}]")
        return
    assert node.get("type") in JSON_TYPES, where
    if "enum" in node:
        assert node["enum"] and all(isinstance(v, str) for v in node["enum"]), where
    if node["type"] == "array":
        _check_schema(node["items"], defs, f"{where}.items")
    if node["type"] == "object" and "properties" in node:
        for name, prop in node["properties"].items():
            assert isinstance(prop.get("description"), str) and prop["description"], where
            _check_schema(prop, defs, f"{where}.{name}")
        assert set(node.get("required", ())) <= set(node["properties"]), where


def test_every_tools_schema_is_a_json_schema_that_follows_its_signature() -> None:
    for tool in ToolRegistry.discover():
        schema = tool.input_schema
        assert json.loads(json.dumps(schema)) == schema  # plain JSON
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert tool.description and not tool.description.endswith(":")
        defs = schema.get("$defs", {})
        _check_schema(schema, defs, tool.name)
        for name, sub in defs.items():
            _check_schema(sub, defs, f"{tool.name}.$defs.{name}")
        parameters = list(inspect.signature(tool.function).parameters.values())[1:]
        assert list(schema["properties"]) == [p.name for p in parameters], tool.name
        required = [p.name for p in parameters if p.default is p.empty]
        assert schema.get("required", []) == required, tool.name
        _, described = parse_docstring(inspect.getdoc(tool.function) or "")
        for p in parameters:
            prop = schema["properties"][p.name]
            assert prop["description"] == described[p.name], (tool.name, p.name)
            if p.default is None:  # optional: not required, no null written out
                assert "default" not in prop and "anyOf" not in prop, (tool.name, p.name)
            elif p.default is not p.empty:
                assert prop["default"] == p.default, (tool.name, p.name)


def test_docstring_args_section_is_read_line_by_line() -> None:
    summary, described = parse_docstring(
        "Say hello.\n\nMore words.\n\nArgs:\n    name: Who.\n        Still who.\n"
        "    loud (bool): Shout.\n\nReturns:\n    text: not a parameter\n"
    )
    assert summary == "Say hello. More words."
    assert described == {"name": "Who. Still who.", "loud": "Shout."}


def test_a_bad_argument_is_a_typed_error_and_the_page_is_not_touched(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("agent-contact.html"))
    try:
        session = _session(page, browser, ToolRegistry.discover())
        result = _call(browser, session, "click", ref="Save", colour="red")
        assert result.error is not None
        assert result.error.reason == "invalid_arguments"
        assert (
            "ref: Input should be a valid integer, unable to parse string as an integer "
            "(got 'Save')" in result.error.message
        )
        assert "colour: Extra inputs are not permitted" in result.error.message
        assert result.text.startswith("error (invalid_arguments): click: ")
        missing = _call(browser, session, "input", text="x")
        assert missing.error is not None and "ref: Field required" in missing.error.message
        unknown = _call(browser, session, "fly", to="moon")
        assert unknown.error is not None and unknown.error.reason == "unknown_tool"
        assert page.playwright.evaluate("window.saved") is None
    finally:
        page.close()


def test_tools_act_through_the_page_and_errors_carry_the_page_reason(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("agent-contact.html"))
    try:
        session = _session(page, browser, ToolRegistry.discover())
        obs = page.observe()
        typed = _call(browser, session, "input", ref=one(obs, "Job title").id, text="CTO")
        assert typed.error is None
        assert "value [" in typed.text and '"Job title": "Software Engineer" -> "CTO"' in typed.text
        assert typed.value["kinds"] == ["value_change"]
        unknown = _call(browser, session, "input", ref=one(obs, "API token").id, text="{{NOPE}}")
        assert unknown.error is not None and unknown.error.reason == "invalid_option"
        assert "no secret named NOPE for {{NOPE}}; secrets: none were given" in unknown.text
        assert page.playwright.evaluate("document.getElementById('token').value") == ""
        refused = _call(browser, session, "click", ref=one(obs, "Archive").id)
        assert refused.error is not None and refused.error.reason == "disabled"
        found = _call(browser, session, "find_element", query="the Save button")
        assert found.text.splitlines()[0].startswith('query: "the Save button"')
        assert found.value["matches"][0]["name"] == "Save"
        saved = _call(browser, session, "click", ref=found.value["matches"][0]["id"])
        assert "dom_change" in saved.value["kinds"]
        assert page.playwright.evaluate("window.saved.title") == "CTO"
        listed = _call(browser, session, "tabs")
        assert f"* {page.id} {page.url}" in listed.text
        shot = _call(browser, session, "screenshot", marks=True)
        assert shot.image is not None and shot.image.startswith(b"\x89PNG")
    finally:
        page.close()


def test_a_batch_runs_page_tools_as_one_round_and_refuses_others(
    browser: Browser, server: StaticServer
) -> None:
    page = browser.open(server.url("agent-contact.html"))
    try:
        session = _session(page, browser, ToolRegistry.discover())
        obs = page.observe()
        tabs = len(browser.pages)
        title, location = one(obs, "Job title").id, one(obs, "Location").id
        refused = _call(
            browser,
            session,
            "batch",
            actions=[
                {"tool": "input", "arguments": {"ref": title, "text": "CEO"}},
                {"tool": "tabs", "arguments": {"action": "new"}},
            ],
        )
        assert refused.error is not None and refused.error.reason == "not_batchable"
        assert refused.error.message == ("action 2: tabs does not act on the page; nothing was run")
        assert len(browser.pages) == tabs  # the tabs tool did not run either
        assert page.playwright.evaluate("document.getElementById('title').value") == (
            "Software Engineer"
        )  # nothing ran
        ran = _call(
            browser,
            session,
            "batch",
            actions=[
                {"tool": "input", "arguments": {"ref": title, "text": "CEO"}},
                {"tool": "select", "arguments": {"ref": location, "values": ["Tokyo"]}},
                {"tool": "click", "arguments": {"ref": one(obs, "Save").id}},
            ],
        )
        assert [s["status"] for s in ran.value["steps"]] == ["done", "done", "done"]
        assert page.playwright.evaluate("window.saved") == {
            "title": "CEO", "location": "Tokyo", "token": "", "password": "",
        }  # fmt: skip
    finally:
        page.close()


GREET = '''
from pagesight.agent.session import Session


async def greet(session: Session, *, name: str, times: int = 1) -> str:
    """Greet someone on the current page's behalf.

    Args:
        name: Who to greet.
        times: How many times.
    """
    return " ".join([f"hello {name} from {session.page.url}"] * times)
'''


def test_a_tool_dropped_in_a_folder_is_a_new_tool(
    tmp_path: Path, browser: Browser, server: StaticServer
) -> None:
    folder = tmp_path / "my_tools"
    folder.mkdir()
    assert "greet" not in ToolRegistry.discover([folder])
    (folder / "greet.py").write_text(GREET)
    (folder / "_helpers.py").write_text("X = 1\n")  # not a tool: starts with _
    registry = ToolRegistry.discover([folder])
    assert set(registry.names) == BROWSER_TOOLS | {"greet"}
    spec = registry.get("greet").input_schema
    assert spec["properties"]["name"] == {"type": "string", "description": "Who to greet."}
    assert spec["required"] == ["name"]
    page = browser.open(server.url("agent-done.html"))
    try:
        result = _call(browser, _session(page, browser, registry), "greet", name="Ada", times=2)
        assert result.text == f"hello Ada from {page.url} hello Ada from {page.url}"
        bad = _call(browser, _session(page, browser, registry), "greet", name="Ada", times="x")
        assert bad.error is not None and bad.error.reason == "invalid_arguments"
    finally:
        page.close()


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("async def other(session): pass\n", "must define `async def broken(session, …)`"),
        # No docstring: a model would be shown a tool it cannot know the use of.
        ("async def broken(session):\n    return 'x'\n", "give the function a docstring"),
        ("def broken(session):\n    'Doc.'\n", "a tool must be an async def function"),
        ("async def broken(session, *, x: int):\n    'Doc.'\n", "describe `x` in the docstring"),
        (
            "async def broken(session, *, x):\n    'Doc.\\n\\nArgs:\\n    x: X.'\n",
            "type annotation",
        ),
        ("async def broken(*, x: int):\n    'Doc.\\n\\nArgs:\\n    x: X.'\n", "`session`"),
        # A file that does not even import is refused the same way, by name, not with a
        # bare SyntaxError or whatever its top level raised.
        ("async def broken(session:\n", "cannot be imported: SyntaxError"),
        ("import no_such_module_here\n", "cannot be imported: ModuleNotFoundError"),
    ],
)
def test_a_tool_file_that_cannot_be_described_is_refused_by_name(
    tmp_path: Path, source: str, says: str
) -> None:
    (tmp_path / "broken.py").write_text(source)
    with pytest.raises(InvalidOption) as caught:
        ToolRegistry.discover([tmp_path])
    assert caught.value.option == "tools"
    assert says in str(caught.value) and "broken" in str(caught.value)


TYPED = """from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # as typed code imports what only annotations need
    from pagesight.agent import PageStep, Session


async def wave(session: Session, *, ref: int) -> PageStep:
    \"\"\"Hover an element.

    Args:
        ref: The element's id.
    \"\"\"
    from pagesight.agent.tool import PageStep

    return PageStep(ref=ref, action="hover")
"""


def test_a_tool_that_imports_its_types_only_for_type_checking_is_a_tool(
    tmp_path: Path,
) -> None:
    (tmp_path / "wave.py").write_text(TYPED)
    tool = ToolRegistry.discover([tmp_path]).get("wave")
    assert tool.page_action  # its return annotation was read: it may go in a batch
    assert tool.input_schema["properties"]["ref"] == {
        "type": "integer",
        "description": "The element's id.",
    }
    (tmp_path / "wave.py").write_text(TYPED.replace("ref: int", "ref: Ref"))
    with pytest.raises(InvalidOption, match="an annotation names 'Ref', which its module"):
        ToolRegistry.discover([tmp_path])


def test_two_tools_of_one_name_are_refused(tmp_path: Path) -> None:
    (tmp_path / "click.py").write_text(GREET.replace("greet", "click"))
    with pytest.raises(InvalidOption, match="two tools are named 'click'"):
        ToolRegistry.discover([tmp_path])


def test_tool_from_function_gives_the_same_schema_the_registry_does() -> None:
    from pagesight.agent.tools.hover import hover

    tool = Tool.from_function(hover)
    assert tool.input_schema == ToolRegistry.discover().get("hover").input_schema
    assert asyncio.iscoroutinefunction(tool.function)
