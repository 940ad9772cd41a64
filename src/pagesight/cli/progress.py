"""Live progress: one line per step of a run — the step, the element it resolved to, the
effect, the time — from each StepRecord as the agent writes it (``on_step``).

A steps-planner record holds the script's lines it covered (``decision.raw``), so a batch of
four steps gives four lines; any other planner's record gives one line per decision.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from pagesight.agent.decision import Batch, Stop
from pagesight.agent.state import StepRecord
from pagesight.runs.report import describe_decision


@dataclass(frozen=True, kw_only=True)
class ProgressLine:
    step: str
    """The step in words (a script line, or the decision)."""
    element: str
    """What it resolved to: ``button "Edit" in "Alice Chen"`` (``healed`` when found again)."""
    effect: str
    """The Effect's kinds, ``ok`` for a check that held, or why it failed."""
    seconds: float | None
    ok: bool


def progress_lines(record: StepRecord) -> list[ProgressLine]:
    decision = record.decision
    raw = decision.raw if isinstance(decision.raw, dict) else None
    called = record.calls[0] if record.calls else None
    # An act call, by its name or through use_tool (whose value is then the act's own).
    if called is not None and called.tool in ("act", "use_tool") and called.value.get("lines"):
        return _act_lines(record)
    if raw is None or raw.get("planner") != "steps":
        return [_generic(record)]
    out = [
        ProgressLine(
            step=check["step"],
            element=_element(check.get("target")) or _seen(check),
            effect="ok"
            if check.get("ok")
            else "not shown yet"
            if check["kind"] == "wait_for"
            else "failed",
            seconds=None,
            ok=bool(check.get("ok")),
        )
        for check in raw.get("checks", ())
        if check.get("ok") or check["kind"] != "wait_for"  # else its wait_for line follows
    ]
    outcomes = _outcomes(record)
    for i, step in enumerate(raw.get("steps", ())):
        effect, seconds, ok = outcomes[i] if i < len(outcomes) else ("not run", None, False)
        element = _element(step.get("target"))
        if step.get("to"):
            element += " → " + _element(step["to"])
        out.append(
            ProgressLine(step=step["step"], element=element, effect=effect, seconds=seconds, ok=ok)
        )
    if isinstance(decision, Stop):
        out.append(
            ProgressLine(
                step=decision.label or "stop",
                element="",
                effect=f"stopped: {decision.reason}",
                seconds=None,
                ok=False,
            )
        )
    return out


def _outcomes(record: StepRecord) -> list[tuple[str, float | None, bool]]:
    """(effect, seconds, ok) of each action of the record's decision."""
    if not record.calls:
        return []
    call = record.calls[0]
    if isinstance(record.decision, Batch):
        out: list[tuple[str, float | None, bool]] = []
        for step in call.value.get("steps", ()):
            effect = step.get("effect") or {}
            if step["status"] == "done":
                out.append((", ".join(effect.get("kinds", ())), effect.get("elapsed"), True))
            else:
                error = step.get("error") or {}
                out.append(
                    (f"{step['status']}: {error.get('reason', '')}".rstrip(": "), None, False)
                )
        if not out and call.error is not None:
            out.append((f"refused: {call.error.reason}", None, False))
        return out
    if call.error is not None:
        return [(f"error: {call.error.reason}", call.seconds, False)]
    kinds = call.value.get("kinds")
    return [(", ".join(kinds) if kinds else "ok", call.value.get("elapsed", call.seconds), True)]


def _act_lines(record: StepRecord) -> list[ProgressLine]:
    """An ``act`` call: a line per step it took, as the steps planner's script shows."""
    call = record.calls[0]
    targets = {t["id"]: t for t in record.targets}
    out = []
    for line in call.value["lines"]:
        args = line.get("arguments") or {}
        element = _element(targets.get(args.get("ref", line.get("ref"))))
        if "tool" in line:
            ok = line["status"] == "done"
            effect = ", ".join(line.get("kinds", ())) or "ok" if ok else line["status"]
        elif "check" in line:
            ok = bool(line["ok"])
            effect = "ok" if ok else "failed"
            element = element or _seen(line)
        else:
            ok, effect = True, "done"
        out.append(
            ProgressLine(step=line["step"], element=element, effect=effect, seconds=None, ok=ok)
        )
    failed = next((i for i, line in enumerate(out) if not line.ok), None)
    if call.error is not None and failed is not None:  # the line that failed says why
        line = out[failed]
        out[failed] = replace(line, effect=f"{line.effect}: {call.error.reason}")
    return out


def _generic(record: StepRecord) -> ProgressLine:
    from pagesight.agent.decision import decision_dict

    decision = record.decision
    elements = "; ".join(_element(t) for t in record.targets)
    outcomes = _outcomes(record)
    effect = "; ".join(o[0] for o in outcomes) if outcomes else type(decision).__name__.lower()
    return ProgressLine(
        step=decision.label or describe_decision(decision_dict(decision)),
        element=elements,
        effect=effect,
        seconds=record.act_seconds if record.calls else None,
        ok=all(o[2] for o in outcomes),
    )


def _seen(check: dict[str, Any]) -> str:
    """The text a check of the page's text found it in (``text "✓ Saved"``): where an
    ``expect "Saved"`` held, shown beside it."""
    seen = check.get("seen")
    return f"text {json.dumps(seen, ensure_ascii=False)}" if isinstance(seen, str) else ""


def _element(target: dict[str, Any] | None) -> str:
    if not target:
        return ""
    name = json.dumps(target.get("name", ""), ensure_ascii=False)
    context = target.get("context")
    where = f" in {json.dumps(context, ensure_ascii=False)}" if context else ""
    healed = "  (healed)" if target.get("how") == "healed" else ""
    return f"{target.get('role', '')} {name}{where}{healed}"
