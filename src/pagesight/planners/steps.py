"""The steps planner: a script of steps in words, run offline and deterministically.

::

    planner = StepsPlanner.from_file("task.steps")       # or StepsPlanner.from_text("…")
    agent = Agent(browser, planner, secrets=planner.secrets())
    result = agent.run("http://127.0.0.1:8000/")

Each decision covers as many steps as can run as one round: consecutive actions whose targets
resolve on the page as it is now (see :mod:`pagesight.planners.resolve`) go into one
:class:`~pagesight.agent.decision.Batch`. A round ends before an ``expect`` or ``wait for``
(it looks at the page after the actions before it), after ``go to`` and after a click on a
link (they load another page), and before a step whose target is not on the page yet (it is
resolved in the next round, on the page the round left). ``accept the next dialog`` is a round
of its own (the ``handle_dialog`` tool, which the confirm gate asks about); ``done`` ends the
run once the rounds before it held, with its answer.

The next decision first checks the round it issued, through each step's Effect: a click that
changed nothing (``no_op``) stops the run (``no_effect``), as does an action that failed
(``step_failed``) — except a step after the first of its round that was refused or failed on
a page its round had changed: its target is resolved again on the new page, once; and a
click followed by ``wait for`` may change nothing at once (the wait checks it). An action
that did not do what it was for — its submit stopped by the browser's own validation
(``form_invalid``, the fields named) or where it led refused by the origin policy
(``refused``) — fails its step too (``step_failed``), unless an ``expect`` later in the
script may show the goal reached anyway: that expect decides, and says so when it fails.
Then the checks: ``expect`` looks at the observation the planner is shown (free: no round;
the text as written, see :mod:`pagesight.observe.shown`, its record saying where it was
``seen``), and so does ``wait for`` when the text is there already; when it is not, the
``wait_for`` tool polls the page (its own round). A failed check stops the run
(``expect_failed``), a target nothing matches or two match too closely to tell apart stops
it too (``target_not_found``, ``target_ambiguous``), each with a message naming the line,
what was expected, what was seen and the best candidates with their scores.

Every decision carries in ``raw`` the steps it covers, each with the element it resolved to
(id, role, name, context, selector, score, and ``how``: by words, by hint, or healed), and
the checks made: the records hold what a replay (``steps.txt``) and the live progress need.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from pagesight.agent.blocked import EXPECTS, blocked
from pagesight.agent.decision import Action, Batch, Decision, Done, PlannerStop, Stop
from pagesight.agent.secrets import ENV_PREFIX
from pagesight.agent.state import State
from pagesight.agent.tool import ToolFailure
from pagesight.errors import InvalidOption, StepsError
from pagesight.observe.observation import Observation
from pagesight.observe.shown import closest_texts, contains, has_value, quoted, shown
from pagesight.planners.resolve import Candidate, Refused, Resolved, resolve
from pagesight.runs.grammar import CHECKS, Step, Target, element_words, parse

WAIT_TIMEOUT_S = 10.0
"""How long ``wait for`` waits by default."""

_ACCEPTS: dict[str, frozenset[str] | None] = {
    "type": frozenset({"input"}),
    "select": frozenset({"select"}),
    "upload": frozenset({"upload"}),
    "expect_value": frozenset({"input", "select"}),
}


@dataclass(frozen=True)
class _Blocked:
    """A blocked step, in words, and the page its round started from."""

    step: Step
    message: str
    page: Observation


@dataclass(frozen=True, kw_only=True)
class _Planned:
    index: int
    """The step's place in the script."""
    step: Step
    action: Action
    record: dict[str, Any]
    navigates: bool = False
    """Its round ends after it: it loads another page (or answers the next action's dialog)."""


class StepsPlanner:
    """Runs a script of steps (see :mod:`pagesight.runs.grammar` for the language).

    ``base`` is the folder relative ``upload`` files are found in (a script file's own);
    ``wait_timeout`` how long ``wait for`` waits; ``batch=False`` makes each action a round of
    its own (to measure what batching saves). After a run, ``healed`` lists the steps whose
    recorded selector no longer named their element and that were found again by their words.
    """

    include = frozenset({"selector"})
    """What every observation the agent shows this planner must hold (read by the loop)."""

    def __init__(
        self,
        steps: Sequence[Step],
        *,
        source: str = "<steps>",
        base: str | Path | None = None,
        wait_timeout: float = WAIT_TIMEOUT_S,
        batch: bool = True,
    ) -> None:
        if not steps:
            raise StepsError("the script has no steps")
        if not 0 < wait_timeout <= 120:
            raise InvalidOption("wait_timeout", f"wait_timeout is 0 to 120 s, not {wait_timeout}")
        self.steps = tuple(steps)
        self.source = source
        self._base = Path(base) if base is not None else None
        self._wait_timeout = wait_timeout
        self._batch = batch
        self._cursor = 0
        self._issued: list[_Planned] = []
        self._issued_on: Observation | None = None
        """The page the round issued last was planned on."""
        self._healed: dict[tuple[int, str], dict[str, Any]] = {}
        self._unproven: list[_Blocked] = []
        """Steps that were blocked (``form_invalid``, ``refused``), waiting for a later
        ``expect`` to show the goal was reached anyway."""

    @classmethod
    def from_text(cls, text: str, *, source: str = "<text>", **options: Any) -> StepsPlanner:
        """The planner of a script given as text; ``StepsError`` naming a line that is no step."""
        return cls(parse(text), source=source, **options)

    @classmethod
    def from_file(cls, path: str | Path, **options: Any) -> StepsPlanner:
        """The planner of a script file (UTF-8); ``InvalidOption("steps")`` when there is no
        such file, ``StepsError`` (``line N: …``) for a line that is no step."""
        path = Path(path)
        if not path.is_file():
            raise InvalidOption("steps", f"no steps file at {str(path)!r}")
        try:
            # utf-8-sig: a file saved "UTF-8 with BOM" (Notepad) reads from its first step,
            # not with a mark that makes line 1 no step.
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidOption("steps", f"cannot read {str(path)!r} as UTF-8 text: {exc}") from exc
        try:
            steps = parse(text)
        except StepsError as exc:
            error = StepsError(f"{path}: {exc}")
            error.line = exc.line
            raise error from exc
        options.setdefault("base", path.parent)
        return cls(steps, source=str(path), **options)

    @property
    def healed(self) -> tuple[dict[str, Any], ...]:
        """The steps healed so far: line, step, the old ``hint`` and the new ``selector``."""
        return tuple(self._healed[key] for key in sorted(self._healed))

    def secret_names(self) -> dict[str, int]:
        """Each secret the script names (``{{NAME}}``), with the first line naming it."""
        names: dict[str, int] = {}
        for step in self.steps:
            for name in step.secret_names:
                names.setdefault(name, step.line)
        return names

    def secrets(
        self, given: Mapping[str, str] | None = None, *, environ: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The value of every secret the script names: from ``given`` (``--secret``; a key
        ``NAME@ORIGIN`` scopes it, and stays the key), else from the environment variable
        ``PAGESIGHT_SECRET_NAME`` or ``NAME``. ``StepsError`` naming the line of one that has
        none."""
        given = dict(given or {})
        # A key may scope its secret (``NAME@https://bank.example``): kept as it is.
        keys = {key.partition("@")[0].strip(): key for key in given}
        env = os.environ if environ is None else environ
        out = {}
        for name, line in self.secret_names().items():
            key = keys.get(name, name)
            value = given.get(key) or env.get(ENV_PREFIX + name) or env.get(name)
            if not value:
                error = StepsError(
                    f"{{{{{name}}}}} needs a value: --secret {name}=VALUE or the environment "
                    f"variable {ENV_PREFIX}{name} (or {name})",
                    line=line,
                )
                if not self.source.startswith("<"):  # a file: say which
                    error = StepsError(f"{self.source}: {error}")
                    error.line = line
                raise error
            out[key] = value
        return out

    async def decide(self, state: State) -> Decision:
        if state.step == 1:  # a new run: the script from its start
            self._cursor, self._issued, self._healed, self._unproven = 0, [], {}, []
        if self._issued:
            stopped = self._verify(state)
            if stopped is not None:
                return stopped
        obs = state.observation
        checks: list[dict[str, Any]] = []
        planned: list[_Planned] = []
        while self._cursor < len(self.steps):
            step = self.steps[self._cursor]
            if step.kind in CHECKS:
                if planned:
                    break
                ok, record = _check(step, obs)
                checks.append(record)
                target = record.get("target") or {}
                if target.get("how") == "healed":
                    self._healed[(step.line, "target")] = {
                        "line": step.line,
                        "step": step.text,
                        "hint": target.get("hint"),
                        "selector": target.get("selector"),
                    }
                if ok:
                    if step.kind in EXPECTS:
                        # The goal was reached after all, unless the page before the blocked
                        # step already held what this expect saw: then it shows no change.
                        self._unproven = [b for b in self._unproven if _check(step, b.page)[0]]
                    self._cursor += 1
                    continue
                if step.kind != "wait_for":
                    message = record["message"] + "".join(
                        f"; before it, {b.message}" for b in self._unproven
                    )
                    return self._stop("expect_failed", step, message, checks)
                planned.append(self._wait(step))
                break
            if step.kind == "done":
                if planned:  # the round before it runs first, and is checked
                    break
                if self._unproven:
                    return self._unshown(checks)
                raw = {"planner": "steps", "checks": checks, "steps": []}
                self._cursor = len(self.steps)
                return Done(label=step.text, answer=step.value, raw=raw)
            if step.kind == "accept_dialog" and planned:
                break  # a tool call of its own, not a page action a batch can hold
            item = self._plan(step, state)
            if isinstance(item, Refused):
                if planned:  # it may be on the page once this round has run
                    break
                message = f"line {step.line}: {step.text}: {item.message}"
                return self._stop(item.reason, step, message, checks, item.candidates)
            planned.append(item)
            self._cursor += 1
            if item.navigates or not self._batch:
                break
        self._issued, self._issued_on = planned, obs
        raw = {"planner": "steps", "checks": checks, "steps": [p.record for p in planned]}
        if not planned:
            if self._unproven:
                return self._unshown(checks)
            return Done(label="every step ran", raw=raw)
        label = "; ".join(p.step.text for p in planned)
        if len(planned) == 1:
            a = planned[0].action
            return Action(tool=a.tool, arguments=a.arguments, label=label, raw=raw)
        return Batch(actions=tuple(p.action for p in planned), label=label, raw=raw)

    # --- planning a step ------------------------------------------------------------------------

    def _plan(self, step: Step, state: State) -> _Planned | Refused:
        obs = state.observation
        record: dict[str, Any] = {"line": step.line, "step": step.text, "kind": step.kind}
        if step.kind == "go_to":
            url = urljoin(state.url, step.value or "")
            action = Action(tool="navigate", arguments={"url": url})
            return _Planned(
                index=self._cursor, step=step, action=action, record=record, navigates=True
            )
        if step.kind == "accept_dialog":
            # Its own round: the answer holds for the next action, the step after it.
            action = Action(tool="handle_dialog", arguments={"accept": True})
            return _Planned(
                index=self._cursor, step=step, action=action, record=record, navigates=True
            )
        if step.kind == "press" and step.target is None:
            action = Action(tool="press_key", arguments={"key": step.value})
            return _Planned(index=self._cursor, step=step, action=action, record=record)
        assert step.target is not None
        accepts = _ACCEPTS.get(step.kind)
        found = resolve(obs, step.target, accepts=accepts)
        if isinstance(found, Refused):
            return found
        record["target"] = self._target_record(step, step.target, found, obs, accepts)
        ref, words = found.element.id, step.target.query
        args: dict[str, Any] = {"ref": ref, "element": words}
        tool = {
            "click": "click",
            "type": "input",
            "select": "select",
            "press": "press_key",
            "hover": "hover",
            "scroll_to": "scroll",
            "drag": "drag",
            "upload": "upload",
        }[step.kind]
        if step.kind == "type":
            args["text"] = step.value
        elif step.kind == "select":
            args["values"] = [step.value]
        elif step.kind == "press":
            args["key"] = step.value
        elif step.kind == "upload":
            args["files"] = [self._file(step.value or "")]
        elif step.kind == "drag":
            assert step.to is not None
            dropped = resolve(obs, step.to, accepts=None)
            if isinstance(dropped, Refused):
                return dropped
            record["to"] = self._target_record(step, step.to, dropped, obs, None)
            args.update(to_ref=dropped.element.id, to_element=step.to.query)
        navigates = step.kind == "click" and found.element.role == "link"
        return _Planned(
            index=self._cursor,
            step=step,
            action=Action(tool=tool, arguments=args),
            record=record,
            navigates=navigates,
        )

    def _wait(self, step: Step) -> _Planned:
        action = Action(
            tool="wait_for", arguments={"text": step.value, "timeout": self._wait_timeout}
        )
        record = {"line": step.line, "step": step.text, "kind": step.kind}
        planned = _Planned(index=self._cursor, step=step, action=action, record=record)
        self._cursor += 1
        return planned

    def _file(self, name: str) -> str:
        path = Path(name).expanduser()
        if not path.is_absolute() and self._base is not None and (self._base / path).exists():
            path = self._base / path
        return str(path)

    def _target_record(
        self,
        step: Step,
        target: Target,
        found: Resolved,
        obs: Observation,
        accepts: frozenset[str] | None,
    ) -> dict[str, Any]:
        """The element as the records keep it, with the words a replay names it by: the
        page's own (``"Edit" button in "Alice Chen"``) when they find it alone on this page,
        else the step's."""
        el = found.element
        canonical = element_words(el.role, el.name, el.context)
        again = resolve(obs, Target(words=canonical), accepts=accepts)
        same = isinstance(again, Resolved) and again.element.id == el.id
        if found.how == "healed":
            part = "to" if target is step.to else "target"
            self._healed[(step.line, part)] = {
                "line": step.line,
                "step": step.text,
                "hint": target.hint,
                "selector": found.candidate.selector,
            }
        return {
            **found.candidate.to_dict(),
            "how": found.how,
            "hint": target.hint,
            "words": canonical if same else target.words,
            "runners_up": [c.to_dict() for c in found.runners_up[:2]],
        }

    # --- checking the round before ------------------------------------------------------------

    def _verify(self, state: State) -> Stop | None:
        """The round issued last, through each step's Effect: a stop, or None to go on (with
        the cursor moved back to a step that must be resolved again)."""
        issued, self._issued = self._issued, []
        before = self._issued_on if self._issued_on is not None else state.observation
        if not state.history or not state.history[-1].calls:
            return None
        call = state.history[-1].calls[0]
        if call.tool != "batch":
            planned = issued[0]
            why = blocked(call.value)
            if why is not None:  # a refused origin is an error too: the rule for both
                return self._blocked(planned, _with_policy(why, call.error), before)
            if call.error is not None:
                reason: PlannerStop = "expect_failed" if call.tool == "wait_for" else "step_failed"
                message = f"line {planned.step.line}: {planned.step.text}: {call.error.message}"
                if planned.step.kind == "wait_for":
                    message += "; the page shows: " + closest_texts(
                        state.observation, planned.step.value or ""
                    )
                return self._stop(reason, planned.step, message, [])
            return self._no_op(planned, call.value.get("kinds", ()))
        results = call.value.get("steps") or []
        for i, planned in enumerate(issued):
            result = results[i] if i < len(results) else None
            if result is None or result["status"] != "done":
                if result is None:  # refused before any step ran: say which lines it held
                    lines = ", ".join(str(p.step.line) for p in issued)
                    why = call.error.message if call.error else "it did not run"
                    message = f"lines {lines} ({'; '.join(p.step.text for p in issued)}): {why}"
                    return self._stop("step_failed", planned.step, message, [])
                if i == 0:
                    error = result.get("error") or {}
                    why = error.get("message") or f"it was {result['status']}"
                    message = f"line {planned.step.line}: {planned.step.text}: {why}"
                    return self._stop("step_failed", planned.step, message, [])
                # Resolved on the page before its round changed it: resolve it again now.
                self._cursor = planned.index
                return None
            effect = result.get("effect") or {}
            why = blocked(effect)
            stopped = (
                self._blocked(planned, _with_policy(why, call.error), before)
                if why is not None
                else self._no_op(planned, effect.get("kinds", ()))
            )
            if stopped is not None:
                return stopped
        return None

    def _blocked(self, planned: _Planned, why: str, page: Observation) -> Stop | None:
        """A step whose action was blocked (its submit stopped by the browser's validation,
        where it led refused) fails, unless an ``expect`` later in the script may yet show
        the goal reached anyway: then that expect decides (and says this if it fails) — if
        what it sees was not on the ``page`` its round started from already."""
        message = f"line {planned.step.line}: {planned.step.text}: {why}"
        if any(s.kind in EXPECTS for s in self.steps[planned.index + 1 :]):
            self._unproven.append(_Blocked(planned.step, message, page))
            return None
        return self._stop("step_failed", planned.step, message, [])

    def _unshown(self, checks: list[dict[str, Any]]) -> Stop:
        """The script ran out with a blocked step that no later expect showed made good:
        each one that held saw what the page already showed before the step."""
        first = self._unproven[0]
        message = f"{first.message}; the expects after it saw only what the page showed before it"
        return self._stop("step_failed", first.step, message, checks)

    def _no_op(self, planned: _Planned, kinds: Sequence[str]) -> Stop | None:
        if planned.step.kind != "click" or list(kinds) != ["no_op"]:
            return None
        following = self.steps[planned.index + 1] if planned.index + 1 < len(self.steps) else None
        if following is not None and following.kind == "wait_for":
            return None  # the script says the change comes later: the wait checks it
        target = planned.record.get("target") or {}
        clicked = _describe(target) if target else "the element"
        others = "; ".join(_describe(c) for c in target.get("runners_up", ()))
        message = (
            f"line {planned.step.line}: {planned.step.text}: expected the click to change the "
            f"page; seen: nothing changed (no_op) after clicking {clicked}"
            + (f"; other candidates: {others}" if others else "")
        )
        return self._stop("no_effect", planned.step, message, [])

    def _stop(
        self,
        reason: PlannerStop,
        step: Step,
        message: str,
        checks: list[dict[str, Any]],
        candidates: Sequence[Candidate] = (),
    ) -> Stop:
        raw = {
            "planner": "steps",
            "checks": checks,
            "steps": [],
            "failed": {
                "line": step.line,
                "step": step.text,
                "reason": reason,
                "candidates": [c.to_dict() for c in candidates],
            },
        }
        return Stop(reason=reason, message=message, label=step.text, raw=raw)


# --- checks ----------------------------------------------------------------------------------


def _check(step: Step, obs: Observation) -> tuple[bool, dict[str, Any]]:
    """Whether a check holds on ``obs``, and its record (with a message when it does not)."""
    want = step.value or ""
    record: dict[str, Any] = {
        "line": step.line,
        "step": step.text,
        "kind": step.kind,
        "value": want,
    }
    if step.kind in ("expect_text", "expect_containing", "wait_for"):
        # As written, starting a phrase, for expect; anywhere, in any case, for the
        # forgiving form and for a wait (see observe/shown.py).
        piece = (shown if step.kind == "expect_text" else contains)(obs, want)
        ok = piece is not None
        record["ok"] = ok
        if ok:
            record["seen"] = piece
        else:
            record["message"] = (
                f"line {step.line}: {step.text}: expected the page to show {want!r}; seen: "
                + closest_texts(obs, want)
            )
        return ok, record
    assert step.target is not None
    found = resolve(obs, step.target, accepts=_ACCEPTS["expect_value"])
    if isinstance(found, Refused):
        record.update(ok=False, message=f"line {step.line}: {step.text}: {found.message}")
        return False, record
    el = found.element
    seen = el.value or ""
    ok = has_value(seen, want)
    record.update(ok=ok, seen=seen, target={**found.candidate.to_dict(), "how": found.how})
    record["target"]["words"] = element_words(el.role, el.name, el.context)
    record["target"]["hint"] = step.target.hint
    if not ok:
        # The value as it is, never escaped (repr would double a backslash): a secret typed
        # into the field must reach the mask as given, to be written as {{NAME}}.
        others = "; ".join(c.describe() for c in found.runners_up[:2])
        record["message"] = (
            f"line {step.line}: {step.text}: expected {found.candidate.describe()} to be "
            f"{want!r}; seen: '{seen}'" + (f"; other candidates: {others}" if others else "")
        )
    return ok, record


def _with_policy(why: str, error: ToolFailure | None) -> str:
    """``why`` a step was blocked, with the origin policy's own words when it refused where
    the step led (which origins it allows, how to allow this one)."""
    if error is not None and error.reason == "origin_not_allowed":
        return f"{why} ({error.message})"
    return why


def _describe(c: Mapping[str, Any]) -> str:
    context = f" in {quoted(c['context'])}" if c.get("context") else ""
    at = f"  @ {c['selector']}" if c.get("selector") else ""
    return f"[{c['id']}] {c['role']} {quoted(c['name'])}{context}  score {c['score']:g}{at}"
