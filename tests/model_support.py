"""A capable model, scripted: replies to the demo task (Orbit CRM: Alice Chen becomes a Senior
Software Engineer in New York) worked out from the request a fake server got, by reading the
element ids off the latest outline in it, as a model would."""

from __future__ import annotations

import re
from typing import Any

from pagesight.models import price_of
from pagesight.testing import Reply
from pagesight.testing.server import ScriptedServer

GOAL = "Make Alice Chen a Senior Software Engineer in New York, and save it"
SAVED = [{"job_title": "Senior Software Engineer", "location": "New York"}]


def model_tokens(fake: ScriptedServer) -> dict[str, int]:
    """What summary.json's ``model_tokens`` says of the replies ``fake`` sent, summed."""
    return {
        "input": sum(i for i, _ in fake.usages),
        "cached_input": sum(r for r, _ in fake.cached),
        "cache_write": sum(w for _, w in fake.cached),
        "output": sum(o for _, o in fake.usages),
    }


def cost(fake: ScriptedServer, name: str) -> float:
    """What the replies ``fake`` sent cost at the price of ``name`` (``provider:model``),
    each reply's cached input and cache writes at their own rates."""
    price = price_of(*name.split(":", 1))
    assert price is not None, name
    return sum(
        price.cost(i, o, cached=r, written=w)
        for (i, o), (r, w) in zip(fake.usages, fake.cached, strict=True)
    )


def texts(value: Any) -> list[str]:
    """Every string in a request body (messages, blocks, tool results), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for item in value for t in texts(item)]
    if isinstance(value, dict):
        return [
            t
            for key, item in value.items()
            if key not in ("tools", "data", "url")
            for t in texts(item)
        ]
    return []


def latest_page(body: dict[str, Any]) -> str:
    """The latest outline sent: the text from the last ``page "…"`` header on (older
    observations were collapsed to stubs, which have none)."""
    every = "\n".join(texts(body.get("messages", [])))
    start = every.rfind('page "')
    assert start >= 0, f"no outline in the request:\n{every[:2000]}"
    return every[start:]


def ref(page: str, pattern: str) -> int:
    found = re.search(pattern, page)
    assert found, f"{pattern!r} is not on the page:\n{page}"
    return int(found.group(1))


def capable(body: dict[str, Any], *, strict: bool = False) -> Reply:
    """The next step of the demo task, as a capable model would take it. With ``strict``,
    it writes ``null`` for each optional argument it leaves out, as OpenAI's strict mode
    makes a model do."""
    page = latest_page(body)
    nulls: dict[str, Any] = {"double_click": None, "button": None} if strict else {}
    if 'h1 "Edit contact: Alice Chen"' in page:
        return Reply.calls(
            (
                "input",
                {
                    "ref": ref(page, r'\[(\d+)\] textbox "Job title"'),
                    "text": "Senior Software Engineer",
                },
            ),
            (
                "select",
                {"ref": ref(page, r'\[(\d+)\] combobox "Location"'), "values": ["New York"]},
            ),
            ("click", {"ref": ref(page, r'\[(\d+)\] button "Save"'), **nulls}),
        )
    if "Senior Software Engineer" in page and "New York" in page:
        return Reply.calling("done", answer="Alice Chen is a Senior Software Engineer in New York")
    edit = ref(page, r'row: \[\d+\] link "Alice Chen" .*?\[(\d+)\] link "Edit"')
    return Reply.calling("click", ref=edit, element="Alice Chen's Edit link", **nulls)
