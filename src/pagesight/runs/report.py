"""report.html: one run as a timeline a person opens in a browser.

Built from the run's folder alone (``run.jsonl``, ``summary.json``, the screenshots), so it
can be written again later. One self-contained file: the screenshots are inline as
``data:`` URLs, the style is inline, no script. Every text from the run is escaped by
Jinja2's autoescaping.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import jinja2

from pagesight.runs.folder import FINAL_SHOT, REPORT, RUN_LOG, SUMMARY, write_atomically

_TEMPLATE = Path(__file__).with_name("report.html.j2")


def write_report(
    folder: str | Path, *, failure: str | None = None, summary: dict[str, Any] | None = None
) -> Path:
    """Write ``report.html`` in ``folder`` from the records there (``summary``: the run's,
    before its ``summary.json`` is written); its path."""
    folder = Path(folder)
    steps = [json.loads(line) for line in _lines(folder / RUN_LOG)]
    for step in steps:
        step["image"] = _data_url(folder / step["screenshot"]) if step.get("screenshot") else None
        step["action"] = describe_decision(step["decision"])
        step["elements"] = "; ".join(_target(t) for t in step.get("targets", ()))
        step["candidates"] = describe_candidates(step["decision"].get("raw"))
        step["checks"] = describe_checks(step)
    summary_path = folder / SUMMARY
    if summary is None and summary_path.exists():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    html = env.from_string(_TEMPLATE.read_text(encoding="utf-8")).render(
        folder=folder.name,
        steps=steps,
        summary=summary,
        failure=failure,
        final_image=_data_url(folder / FINAL_SHOT),
    )
    path = folder / REPORT
    write_atomically(path, html)  # whole or not at all, as every record but run.jsonl
    return path


def describe_decision(decision: dict[str, Any]) -> str:
    """One line for a decision: ``click ref=12 "the Save button"``, ``batch of 3``, ``done``."""
    kind = decision["type"]
    if kind == "action":
        return _call_line(decision)
    if kind == "batch":
        return f"batch of {len(decision['actions'])}: " + "; ".join(
            _call_line(a) for a in decision["actions"]
        )
    if kind == "done":
        return "done" + (f": {decision['answer']}" if decision.get("answer") else "")
    return f"stop ({decision['reason']})" + (
        f": {decision['message']}" if decision["message"] else ""
    )


def describe_checks(step: dict[str, Any]) -> str:
    """The checks a step made, each with what it found: ``expect "Saved": seen "✓ Saved."``
    (the steps planner's, in its decision; an ``act`` call's, in its lines)."""
    raw = step["decision"].get("raw")
    checks = list(raw.get("checks") or ()) if isinstance(raw, dict) else []
    for call in step.get("calls") or ():
        lines = (call.get("value") or {}).get("lines")
        checks.extend(line for line in lines or () if "check" in line)
    out = []
    for check in checks:
        seen = check.get("seen")
        found = f"seen {json.dumps(seen, ensure_ascii=False)}" if isinstance(seen, str) else "ok"
        out.append(f"{check.get('step')}: {found if check.get('ok') else 'failed'}")
    return "; ".join(out)


def describe_candidates(raw: Any) -> str:
    """The decisions planner's top candidates of a step, in one line: ``next_action [41] 0.90,
    [42] 0.05 · dismiss none 0.98 · goal_reached 0.02 · risk 0.95/0.04/0.01/0.00``; empty for
    a planner whose raw answer holds none (``raw["top"]``)."""
    top = raw.get("top") if isinstance(raw, dict) else None
    if not isinstance(top, dict):
        return ""
    parts = []
    for name, value in top.items():
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            shown = ", ".join(
                f"{k if k == 'none' or name == 'value' else f'[{k}]'} {p:.2f}" for k, p in value
            )
            parts.append(f"{name} {shown}")
        elif isinstance(value, list):
            parts.append(f"{name} " + "/".join(f"{p:.2f}" for p in value))
        elif isinstance(value, int | float):
            parts.append(f"{name} {value:.2f}")
    return " · ".join(parts)


def _target(element: dict[str, Any]) -> str:
    """``[12] button "Save" in "Alice Chen"``: the element as the page showed it."""
    context = f' in "{element["context"]}"' if element.get("context") else ""
    return f'[{element["id"]}] {element["role"]} "{element["name"]}"{context}'


def _call_line(action: dict[str, Any]) -> str:
    args = dict(action["arguments"])
    words = args.pop("element", None)
    shown = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return " ".join(p for p in (action["tool"], shown, f'"{words}"' if words else "") if p)


def _lines(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _data_url(path: Path) -> str | None:
    if not path.exists():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
