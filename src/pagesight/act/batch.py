"""Batches: several steps in order, stopping at the first failure, never rolled back.

A step that loads a new document must be the last: the ids of the steps after it named
elements of the page before, so they are refused with ``page_changed``. Within one document
ids live as long as their elements, so a step that only changes it — a search filtering a list,
a ``pushState`` route — is followed by the rest; but once it has rebuilt the page (removed
most of what was there), a later step whose element went with it is refused the same way
rather than reported stale, since the plan it was part of no longer fits the page.

A step that fails with any pagesight error — an :class:`ActionError`, a navigation that could
not load (:class:`NavigationError`) or was refused (:class:`OriginNotAllowed`), a crash — is
``failed`` with that error, of its own type, on it: the steps before it keep their effects.

A step whose navigation the origin policy refused (``Effect.refused_navigation``) ran, but the
tab stayed where it was: the steps after it, meant for the page it was going to, are not run,
and the batch is not ``ok``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pagesight.act.args import ActOptions, check_args
from pagesight.act.effect import Effect
from pagesight.act.navigation import normalise_url
from pagesight.act.perform import ACTIONS
from pagesight.errors import ActionError, InputError, InvalidOption, PagesightError
from pagesight.observe.observation import check_times

Status = Literal["done", "failed", "refused", "not_run"]
_PAGE_ACTIONS = ("navigate", "back")
_ACT_ARGS = ActOptions.__optional_keys__ | {"wait", "timeout"}
_ARGS = {
    "navigate": frozenset({"url", "wait", "timeout"}),
    "back": frozenset({"wait", "timeout"}),
}
_REBUILT_SHARE = 0.5
"""A step that removes at least this share of the page's elements rebuilt the page."""


@dataclass(frozen=True, kw_only=True)
class Step:
    element_id: int | None
    action: str
    args: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class StepResult:
    """How one step of a batch went."""

    index: int
    element_id: int | None
    action: str
    status: Status
    effect: Effect | None = None
    error: PagesightError | None = None
    """Why the step failed or was refused, as the step raised it: an :class:`ActionError`
    (``page_changed`` for a refused step), :class:`OriginNotAllowed` for a ``navigate`` step
    redirected to an origin not allowed, :class:`NavigationError`, :class:`PageCrashed`, …;
    its ``reason`` names it."""


@dataclass(frozen=True, kw_only=True)
class BatchResult:
    """Every step's result, in order, and the effect of the last step that ran."""

    steps: tuple[StepResult, ...]
    effect: Effect | None

    @property
    def ok(self) -> bool:
        """Every step ran, and none led where the origin policy refused to go."""
        return all(
            step.status == "done"
            and (step.effect is None or step.effect.refused_navigation is None)
            for step in self.steps
        )

    def text(self) -> str:
        lines = []
        for s in self.steps:
            target = f" [{s.element_id}]" if s.element_id is not None else ""
            detail = f" ({s.error.reason}): {s.error}" if s.error else ""
            if s.effect is not None:
                detail = f": {', '.join(s.effect.kinds)}"
            lines.append(f"{s.index + 1}. {s.action}{target} {s.status}{detail}")
        return "\n".join(lines)


def parse_steps(steps: Iterable[Sequence[Any]]) -> list[Step]:
    """Check the shape of every step before any runs: a malformed batch does nothing."""
    if isinstance(steps, str | bytes | dict) or not isinstance(steps, Iterable):
        raise InvalidOption(
            "steps", f"steps must be a list of (element_id, action[, args]) steps, not {steps!r}"
        )
    out = []
    for i, raw in enumerate(steps):
        if isinstance(raw, str | bytes) or not isinstance(raw, Sequence) or len(raw) not in (2, 3):
            raise InvalidOption(
                "steps", f"step {i + 1} must be (element_id, action) or (element_id, action, args)"
            )
        element_id, action = raw[0], raw[1]
        args = raw[2] if len(raw) == 3 else {}
        if action not in (*ACTIONS, *_PAGE_ACTIONS):
            raise InvalidOption(
                "steps",
                f"step {i + 1}: unknown action {action!r}; use one of "
                + ", ".join((*ACTIONS, *_PAGE_ACTIONS)),
            )
        if not isinstance(args, dict):
            raise InvalidOption("steps", f"step {i + 1}: args must be a dict, not {args!r}")
        accepted = _ARGS.get(action, _ACT_ARGS)
        unknown = sorted(set(args) - accepted)
        if unknown:
            raise InvalidOption(
                "steps",
                f"step {i + 1}: {action} takes no {', '.join(unknown)}; "
                f"it takes {', '.join(sorted(accepted))}",
            )
        if action == "navigate" and "url" not in args:
            raise InvalidOption("steps", f"step {i + 1}: navigate needs {{'url': …}}")
        if action == "navigate":  # a URL it cannot open fails now, not after earlier steps ran
            try:
                normalise_url(args["url"])
            except InputError as exc:
                raise InvalidOption("steps", f"step {i + 1}: {exc}") from exc
        if element_id is not None and (
            isinstance(element_id, bool) or not isinstance(element_id, int)
        ):
            raise InvalidOption("steps", f"step {i + 1}: element id must be an int or None")
        _check_values(element_id, action, args)
        out.append(Step(element_id=element_id, action=action, args=dict(args)))
    return out


def _check_values(element_id: int | None, action: str, args: dict[str, Any]) -> None:
    """The values page.act would refuse (a missing file, count=4), refused before any step."""
    # Only the times a step gives: navigate and act have defaults of their own.
    check_times(wait=args.get("wait", 0.0), timeout=args.get("timeout", 1.0))
    if action in ACTIONS:
        options = {k: v for k, v in args.items() if k not in ("wait", "timeout")}
        check_args(action, element_id, **options)


async def run_batch(
    steps: list[Step], run: Callable[[int | None, str, dict[str, Any]], Awaitable[Effect]]
) -> BatchResult:
    results: list[StepResult] = []
    last: Effect | None = None
    stop: Status | None = None  # once set, every later step gets this status
    refusal = ""
    alive: set[int] | None = None  # after a rebuild: the ids still on the page
    for i, step in enumerate(steps):
        gone = alive is not None and step.element_id is not None and step.element_id not in alive
        if stop is None and gone:
            stop = "refused"
        if stop == "refused":
            error = ActionError("page_changed", refusal, element_id=step.element_id)
            results.append(_result(i, step, "refused", error=error))
            continue
        if stop == "not_run":
            results.append(_result(i, step, "not_run"))
            continue
        try:
            last = await run(step.element_id, step.action, step.args)
        except PagesightError as exc:  # the steps before keep their effects: returned, not lost
            results.append(_result(i, step, "failed", error=exc))
            stop = "not_run"
            continue
        results.append(_result(i, step, "done", effect=last))
        if last.refused_navigation is not None:
            # The tab stayed where it was: the steps after were meant for where it was going.
            stop = "not_run"
            continue
        if last.changes is None or _rebuilt(last):
            refusal = (
                f"step {i + 1} ({step.action}) changed the page to {last.url_after}; the ids of "
                "later steps belong to the page before it: observe again"
            )
            if last.changes is None:  # a new document
                stop = "refused"
            else:
                alive = {element.id for element in last.observation.elements}
    return BatchResult(steps=tuple(results), effect=last)


def _result(
    index: int,
    step: Step,
    status: Status,
    *,
    effect: Effect | None = None,
    error: PagesightError | None = None,
) -> StepResult:
    return StepResult(
        index=index,
        element_id=step.element_id,
        action=step.action,
        status=status,
        effect=effect,
        error=error,
    )


def _rebuilt(effect: Effect) -> bool:
    """The action removed most of the page's elements (a client-side route change)."""
    assert effect.changes is not None
    now = len(effect.observation.elements)
    before = now - len(effect.changes.added) + len(effect.changes.removed)
    return before > 0 and len(effect.changes.removed) >= _REBUILT_SHARE * before
