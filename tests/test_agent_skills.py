"""Skills: folders with a SKILL.md; the catalog in the system prompt, a body on demand."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import StaticServer
from pagesight import Browser, InvalidOption
from pagesight.agent import Session, Skills, ToolRegistry
from pagesight.agent.skills import parse_skill
from pagesight.planners.llm.context import system_prompt

SKILL = """---
name: crm-search
description: "How to find a contact in Orbit CRM: search first, then open the row."
license: Apache-2.0
---
# Finding a contact
Type the name into the search box and press Enter.
"""


def test_the_shipped_skill_teaches_driving_a_browser() -> None:
    skills = Skills.load()
    assert skills.names == ("browsing",)
    body = skills.get("browsing").body
    for words in (
        "observe",
        "find_element",
        "act",
        "no_op",
        "stale_id",
        "done",
        "fill_form",
        "wait_for",
        "handle_dialog",
    ):
        assert words in body
    assert skills.catalog().startswith("- browsing: How to drive a web page with pagesight's tools")


def test_a_users_skill_joins_the_catalog_in_the_system_prompt(tmp_path: Path) -> None:
    (tmp_path / "crm-search").mkdir()
    (tmp_path / "crm-search" / "SKILL.md").write_text(SKILL)
    skills = Skills.load([tmp_path])
    assert skills.names == ("browsing", "crm-search")
    prompt = system_prompt(skills.catalog())
    assert (
        "- crm-search: How to find a contact in Orbit CRM: search first, then open the row."
        in prompt
    )
    assert "Type the name" not in prompt  # bodies wait for load_skill


def test_load_skill_returns_the_body_and_names_the_skills_when_unknown(
    tmp_path: Path, browser: Browser, server: StaticServer
) -> None:
    (tmp_path / "crm-search").mkdir()
    (tmp_path / "crm-search" / "SKILL.md").write_text(SKILL)
    registry = ToolRegistry.discover()
    page = browser.open(server.url("agent-done.html"))
    try:
        session = Session(
            browser=browser._browser,
            page=page._page,
            registry=registry,
            skills=Skills.load([tmp_path]),
        )
        loaded = browser._loop.run(registry.call("load_skill", {"name": "crm-search"}, session))
        assert (
            loaded.text == "# Finding a contact\nType the name into the search box and press Enter."
        )
        missing = browser._loop.run(registry.call("load_skill", {"name": "nope"}, session))
        assert missing.error is not None and missing.error.reason == "invalid_option"
        assert "no skill named 'nope'; skills: browsing, crm-search" in missing.error.message
    finally:
        page.close()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name: x\n", ":1: a SKILL.md starts with a '---' line"),
        ("---\nname: x\n", "no closing '---'"),
        ("---\nname: x\n---\n", "lacks description"),
        (
            "---\nname: x\ndescription: |\n  two lines\n---\n",
            ":3: expected one `key: value` a line",
        ),
        ("---\nname: x\n  indented: y\n---\n", ":3: expected one `key: value`"),
    ],
)
def test_front_matter_that_is_not_one_key_a_line_is_refused_with_its_line(
    text: str, says: str
) -> None:
    with pytest.raises(InvalidOption) as caught:
        parse_skill(text, Path("s/SKILL.md"))
    assert caught.value.option == "skills"
    assert says in str(caught.value) and "s/SKILL.md" in str(caught.value)


def test_a_skill_saved_with_a_byte_order_mark_or_windows_line_ends_loads(tmp_path: Path) -> None:
    # Notepad and many Windows editors save UTF-8 with a BOM and CRLF line ends.
    (tmp_path / "crm-search").mkdir()
    text = "\ufeff" + SKILL.replace("\n", "\r\n")
    (tmp_path / "crm-search" / "SKILL.md").write_bytes(text.encode("utf-8"))
    skill = next(s for s in Skills.load([tmp_path]) if s.name == "crm-search")
    assert skill.description.startswith("How to find a contact in Orbit CRM")
    assert "\r" not in skill.body and "Type the name" in skill.body
