"""steps.txt: a run compiled into the steps language, to replay it with no model.

Built from ``run.jsonl`` alone, whatever the planner: each action that ran becomes a step
naming its element by the words the page shows (``"Save" button in "Alice Chen"``; the steps
planner's own words when those alone do not find it) with the selector it had as a hint
(``@ #save``); the steps planner's checks (``expect``, ``wait for``) are kept in their place.
``pagesight run URL --steps runs/…/steps.txt`` replays it: a step whose hint no longer names
its element is found again by its words, and the replay says which steps healed.

Actions the language has no step for (a double or right click, a scroll by a screen, going
back, a point of the viewport, a form filled in one call, a dialog dismissed or a prompt
answered) are written as comments, so the file still says what the run did. Navigations to the
run's own origin are written as paths, so a replay may start the same app on another port.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pagesight.runs.folder import STEPS
from pagesight.runs.grammar import Step, Target, element_words, format_step


def compile_run(records: list[dict[str, Any]], *, folder: str = "") -> str:
    """The steps of a run's records (``run.jsonl`` lines), one a line, with a header."""
    start = records[0]["url"] if records else ""
    lines = [
        f"# The run {folder} compiled into steps: replay it with",
        f"#   pagesight run {start or 'URL'} --steps {Path(folder) / STEPS}",
        "# Each target: the words find resolves, then @ the selector it had (a hint).",
    ]
    origin = _origin(start)
    for record in records:
        decision = _called(record["decision"])
        raw = decision.get("raw")
        planned = raw if isinstance(raw, dict) and raw.get("planner") == "steps" else None
        if planned is not None:
            for check in planned.get("checks", ()):
                if check.get("ok") or check["kind"] != "wait_for":  # else its action follows
                    lines.append(_check_line(check))
        actions = decision["actions"] if decision["type"] == "batch" else [decision]
        if decision["type"] == "done" and decision.get("answer") is not None:
            # The answer a goal asked for: a replay gives it again.
            lines.append(format_step(Step(kind="done", value=str(decision["answer"]))))
        if decision["type"] not in ("action", "batch"):
            continue
        if decision["type"] == "action" and decision["tool"] == "act":
            lines.extend(_act_lines(record, origin))
            continue
        ran = _ran(record, len(actions), batch=decision["type"] == "batch")
        targets = {t["id"]: t for t in record.get("targets", ())}
        steps = planned.get("steps", []) if planned is not None else []
        for i, action in enumerate(actions):
            if not ran[i]:
                continue
            own = steps[i] if i < len(steps) else {}
            line = _action_line(action, targets, own, origin)
            if line is not None:
                lines.append(line)
    return "\n".join(lines) + "\n"


def _act_lines(record: dict[str, Any], origin: str) -> list[str]:
    """The steps an ``act`` call ran (its value's ``lines``, in order: actions, checks), each
    element named in words; a line that failed and those after it are left out."""
    calls = record.get("calls") or []
    ran = (calls[0].get("value") or {}).get("lines", []) if calls else []
    targets = {t["id"]: t for t in record.get("targets", ())}
    out = []
    for line in ran:
        if "tool" in line:
            if line.get("status") != "done":
                break
            written = _action_line(line, targets, {}, origin)
            if written is not None:
                out.append(written)
        elif "check" in line:
            if not line.get("ok"):
                break
            x = _target(line.get("ref"), targets, None)
            kind = line["check"]
            out.append(format_step(Step(kind=kind, target=x, value=line.get("value") or "")))
    return out


def _called(decision: dict[str, Any]) -> dict[str, Any]:
    """A ``use_tool`` decision as the call it made, written as that call is (in the ``core``
    profile, ``fill_form``, ``handle_dialog`` or a double click are reached only this way);
    any other decision as it is."""
    args = decision.get("arguments") or {}
    name, inner = args.get("name"), args.get("arguments")
    if decision["type"] != "action" or decision.get("tool") != "use_tool":
        return decision
    if not isinstance(name, str) or not isinstance(inner, dict):
        return decision  # it read a tool's arguments: nothing was done
    if name == "batch":
        return {**decision, "type": "batch", "actions": inner.get("actions") or []}
    return {**decision, "tool": name, "arguments": inner}


def _ran(record: dict[str, Any], count: int, *, batch: bool) -> list[bool]:
    """Which of the decision's actions ran to the end (a batch stops at the first failure)."""
    calls = record.get("calls") or []
    if not calls:
        return [False] * count
    call = calls[0]
    if not batch:
        return [bool(call["ok"])]
    statuses = [s["status"] for s in (call.get("value") or {}).get("steps", [])]
    return [i < len(statuses) and statuses[i] == "done" for i in range(count)]


def _target(ref: Any, targets: dict[int, Any], own: dict[str, Any] | None) -> Target | None:
    if own:
        hint = own.get("selector")
        return Target(words=own["words"], hint=hint)
    shown = targets.get(ref) if isinstance(ref, int) else None
    if shown is None:
        return None
    selector = shown.get("selector")
    hint = " >> ".join(selector) if isinstance(selector, list) and selector else None
    words = element_words(shown["role"], shown.get("name", ""), shown.get("context"))
    return Target(words=words, hint=hint)


def _action_line(
    action: dict[str, Any], targets: dict[int, Any], own: dict[str, Any], origin: str
) -> str | None:
    tool, args = action["tool"], action["arguments"]
    x = _target(args.get("ref"), targets, own.get("target"))
    if tool == "navigate":
        return format_step(Step(kind="go_to", value=_relative(args["url"], origin)))
    if tool == "press_key":
        return format_step(Step(kind="press", value=args["key"], target=x))
    if tool in ("wait_for", "wait_for_text"):  # wait_for_text: its name in older runs
        gone = args.get("text_gone")
        # The steps language waits only for a text to show: a text's going is a comment.
        went = f"# waited for {gone!r} to go" if gone else None
        if args.get("text"):
            step = format_step(Step(kind="wait_for", value=args["text"]))
            return step if went is None else f"{step}\n{went}"  # both were waited for
        return went or "# waited for the page to be ready"
    if tool == "back":
        return "# went back (the steps language has no step for it)"
    if tool == "fill_form":  # its fields' elements are not in the record's targets
        refs = ", ".join(f"[{f.get('ref')}]" for f in args.get("fields", ()))
        return f"# filled the fields {refs} in one round (write a step for each to replay it)"
    if tool in ("click_xy", "hover_xy"):
        return f"# {tool.removesuffix('_xy')} at {args['x']:g}, {args['y']:g} (no element to name)"
    if tool == "drag_xy":
        start, end = (
            f"{args['start_x']:g}, {args['start_y']:g}",
            f"{args['end_x']:g}, {args['end_y']:g}",
        )
        return f"# drag from {start} to {end} (no element to name)"
    if tool == "handle_dialog":
        if args.get("accept") and args.get("prompt_text") is None:
            return format_step(Step(kind="accept_dialog"))
        # Dismissing is what a replay does anyway; a prompt's text has no step.
        answer = "accept" if args.get("accept") else "dismiss"
        return f"# {answer} the next dialog (the steps language has no step for it)"
    if tool == "scroll" and x is None and args.get("direction"):
        return f"# scrolled the page {args['direction']} (the steps language has no step for it)"
    if x is None:
        return None  # not a page action (observe, find_element, screenshot, tabs, …)
    if tool == "click":
        if (
            args.get("double_click")
            or args.get("button", "left") != "left"
            or args.get("hold_seconds")
        ):
            return f"# {format_step(Step(kind='click', target=x))} (a double, right or held click)"
        return format_step(Step(kind="click", target=x))
    if tool == "input":
        line = format_step(Step(kind="type", target=x, value=args["text"]))
        return line + (
            "\n" + format_step(Step(kind="press", value="Enter", target=x))
            if args.get("submit")
            else ""
        )
    if tool == "select":
        values = args.get("values") or [""]
        return format_step(Step(kind="select", target=x, value=values[0]))
    if tool == "hover":
        return format_step(Step(kind="hover", target=x))
    if tool == "scroll":
        step = format_step(Step(kind="scroll_to", target=x))
        return (
            step
            if args.get("direction") is None
            else f"# {step}, then by a screen {args['direction']}"
        )
    if tool == "upload":
        files = args.get("files") or [""]
        return format_step(Step(kind="upload", target=x, value=files[0]))
    if tool == "drag":
        to = _target(args.get("to_ref"), targets, own.get("to"))
        if to is None:
            return f"# drag {x.words} by {args.get('by')} (an offset is not in the steps language)"
        return format_step(Step(kind="drag", target=x, to=to))
    return None


def _check_line(check: dict[str, Any]) -> str:
    kind = check["kind"]
    if kind == "expect_value":
        target = check.get("target") or {}
        x = Target(words=target.get("words", ""), hint=target.get("selector"))
        return format_step(Step(kind="expect_value", target=x, value=_wanted(check)))
    return format_step(Step(kind=kind, value=_wanted(check)))


def _wanted(check: dict[str, Any]) -> str:
    value = check.get("value")
    return value if isinstance(value, str) else ""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def _relative(url: str, origin: str) -> str:
    if origin and url.startswith(origin + "/"):
        return url[len(origin) :]
    return url
