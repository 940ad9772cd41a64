"""Tool calls written as text, read on their own (the planner's runs on real pages are in
test_planner_llm.py): what counts as one reading, what is two, and what is only words."""

from __future__ import annotations

import pytest

from pagesight.planners.llm.textcalls import read_calls

TOOLS = {"click", "input", "done", "select", "back"}


@pytest.mark.parametrize(
    "text",
    [
        "Saving now.",
        "I'm done (mostly) and will go back (later).",
        "The list shows [3] items: [1, 2, 3].",
    ],
)
def test_words_are_not_calls(text: str) -> None:
    assert read_calls(text, TOOLS) is None


def test_the_same_call_said_twice_is_one_reading() -> None:
    text = 'click(ref=3)\n\nSo: {"name": "click", "arguments": {"ref": 3}}'
    found = read_calls(text, TOOLS)
    assert found is not None and found.problem is None
    assert [(c.name, c.arguments) for c in found.calls] == [("click", {"ref": 3})]


def test_calls_one_after_another_are_one_batch_in_order() -> None:
    text = '```json\n{"name": "input", "arguments": {"ref": 4, "text": "Ada"}}\n```\n```json\n{"name": "click", "arguments": {"ref": 5}}\n```'  # noqa: E501
    found = read_calls(text, TOOLS)
    assert found is not None and found.problem is None
    assert [c.name for c in found.calls] == ["input", "click"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("click(3)", "write the arguments of click by name, as click(ref=3), not by position"),
        (
            '{"ref": 3}',
            "your reply holds a JSON object that names no tool; call a tool with the "
            'tool-calling interface (or write {"name": …, "arguments": {…}})',
        ),
        (
            '<tool_call>{"name": "click", "arguments": {"ref": 3}</tool_call>',
            "the <tool_call> block is not valid JSON (Expecting ',' delimiter at character "
            '41); write it as {"name": …, "arguments": {…}}',
        ),
        (
            '{"name": "click", "arguments": "ref=3"}',
            "the arguments of click are a string that is not JSON (Expecting value)",
        ),
    ],
)
def test_a_call_meant_but_unreadable_says_what_to_write(text: str, problem: str) -> None:
    found = read_calls(text, TOOLS)
    assert found is not None and found.calls == () and found.problem == problem


def test_reasoning_in_think_blocks_is_not_read() -> None:
    found = read_calls("<think>click(ref=1)? no.</think> click(ref=2)", TOOLS)
    assert found is not None and [c.arguments for c in found.calls] == [{"ref": 2}]
