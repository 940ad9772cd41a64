"""The agent loop: observe → decide → act → record, until the planner is done, a stop rule
fires, or ``max_steps`` decisions were made.

Stop rules, each with its typed reason (:data:`~pagesight.agent.state.StopReason`):

* the planner answers :class:`Done` (or calls the ``done`` tool) — ``done``; but
  ``unproven`` when an action before it was blocked (its submit stopped by the browser's
  validation, where it led refused) and nothing after showed the goal reached anyway (see
  :mod:`pagesight.agent.blocked`): a run's success is what the page showed, not what the
  planner said;
* the planner answers :class:`Stop` — its reason (``planner_stopped``, ``needs_person``,
  ``uncertain``, …);
* an action the confirm rules say needs a person (:mod:`pagesight.agent.confirm`), with no
  ``confirmer`` to ask or one that said no — ``needs_person``; the planner's own
  ``needs_person`` stop with a step it proposes goes to the confirmer too, and on a yes that
  step is taken;
* three steps in a row fail with the same kind of error — ``repeated_errors``;
* a model planner's context outgrows its token budget (``ContextOverflow``) —
  ``context_overflow``;
* ``max_steps`` decisions were made — ``max_steps``.

Those are runs that ended on their own: ``summary.json`` is written. Any other exception
(the browser crashed, a bug in a planner) escapes ``run`` and leaves no summary.

Each step reads the page once: the observation an action returned (the page after it,
settled) serves as the next step's, so an action costs one observation, not two — unless the
planner has an ``include`` attribute (``{"selector"}``, as the steps planner does) that the
action's observation lacks: then the page is observed again with it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesight.agent import idsteps, profiles
from pagesight.agent.blocked import Unproven
from pagesight.agent.confirm import Asker, ConfirmPolicy
from pagesight.agent.decision import Action, Batch, Decision, Done, Stop
from pagesight.agent.planner import Planner
from pagesight.agent.profiles import DEFAULT_PROFILE, Profile, check_profile
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.secrets import Secrets, hide_secrets, mask_exception
from pagesight.agent.session import Session
from pagesight.agent.skills import Skills
from pagesight.agent.state import (
    CallRecord,
    Layer,
    RunResult,
    State,
    StepRecord,
    StopReason,
    TextLayerResult,
)
from pagesight.agent.tool import ToolResult
from pagesight.errors import ContextOverflow, InvalidOption
from pagesight.guard.risk import Mode, Risk, RiskRules, check_mode
from pagesight.observe import passes
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation
from pagesight.runs.folder import FINAL_SHOT, default_folder, step_shot
from pagesight.runs.record import RunRecorder
from pagesight.tokens import count_tokens
from pagesight.vision.screen import Capture

if TYPE_CHECKING:
    from pagesight.browser.browser import AsyncBrowser
    from pagesight.browser.page import AsyncPage

REPEATED_ERRORS = 3
"""Steps in a row failing with the same kind of error that stop a run."""
_PERSON = frozenset({"needs_person", "declined_by_person"})
"""Tool errors that mean a person must decide: the run stops with ``needs_person``."""


class AsyncAgent:
    """Runs a planner on a page until its goal is reached or a stop rule fires.

    ``tools``: folders of extra tools (one ``async def`` a file), shown in every profile;
    ``tool_profile``: which tools a model planner is shown up front (``"core"``: ``act``,
    ``observe``, ``find_element`` and ``use_tool``, which reaches the rest; ``"vision"``: with
    the screenshot and coordinate tools; ``"full"``: every tool, see
    :mod:`pagesight.agent.profiles`); ``skills``: folders of
    extra skills (``*/SKILL.md``); ``secrets``: values a tool argument names as
    ``{{NAME}}``, typed into the page but never written anywhere (a key
    ``NAME@ORIGIN[,ORIGIN…]`` types it only on those origins, see
    :class:`~pagesight.agent.secrets.Secrets`); ``out``: the run's folder
    (default ``runs/<UTC timestamp>/``; a folder used before is cleared first);
    ``on_step``: called with each StepRecord once it is written (live progress);
    ``timeout``: seconds the page may take to load, and to answer each observation (a page
    whose script never yields fails the run with PageUnresponsive after it);
    ``confirm``: which actions need a person first — ``"risky"`` (what ``confirm_rules``
    names: deleting, paying, sending, submitting a password or card, accepting a
    ``confirm()``), ``"all"``, or ``"never"`` (the default here: a program using the library
    decides for itself; ``pagesight run`` and ``pagesight mcp`` default to ``"risky"``);
    ``confirmer``: ``async (Risk) -> bool`` asking a person; without one, such a step ends
    the run with ``needs_person`` and is not taken.
    """

    def __init__(
        self,
        browser: AsyncBrowser,
        planner: Planner,
        *,
        max_steps: int = 15,
        out: str | Path | None = None,
        tools: Iterable[str | Path] = (),
        tool_profile: Profile = DEFAULT_PROFILE,
        skills: Iterable[str | Path] = (),
        secrets: Mapping[str, str] | None = None,
        on_step: Callable[[StepRecord], object] | None = None,
        timeout: float = 30.0,
        confirm: Mode = "never",
        confirm_rules: RiskRules | None = None,
        confirmer: Asker | None = None,
    ) -> None:
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise InvalidOption("max_steps", f"max_steps must be a positive int, not {max_steps!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise InvalidOption("timeout", f"timeout must be a positive number, not {timeout!r}")
        if not callable(getattr(planner, "decide", None)):
            raise InvalidOption(
                "planner", f"a planner has an async decide(state) method; {planner!r} has none"
            )
        self._browser = browser
        self._planner = planner
        self._max_steps = max_steps
        self._out = Path(out) if out is not None else None
        self._registry = ToolRegistry.discover(tools)
        self._skills = Skills.load(skills)
        # What a model planner is shown, and may call, is the same every step: worked out
        # once, so each request's tools (a prompt cache's prefix) are the very same.
        self._catalog = self._skills.catalog()
        self._shown = profiles.specs(
            self._registry, check_profile(tool_profile), skills=bool(self._catalog)
        )
        self._reachable = self._registry.specs()
        self._secrets = Secrets(secrets)
        self._on_step = on_step
        self._timeout = float(timeout)
        self._confirm = ConfirmPolicy(
            mode=check_mode(confirm), rules=confirm_rules or RiskRules(), ask=confirmer
        )
        self._page: AsyncPage | None = None

    @property
    def registry(self) -> ToolRegistry:
        """The tools this agent offers (built-in and from ``tools`` folders)."""
        return self._registry

    @property
    def skills(self) -> Skills:
        return self._skills

    @property
    def page(self) -> AsyncPage | None:
        """The tab the last run used, left open (``None`` before a run)."""
        return self._page

    async def run(
        self, url: str, goal: str | None = None, *, text_layer: TextLayerResult | None = None
    ) -> RunResult:
        """Open ``url`` in a new tab and run the planner on it toward ``goal``.

        ``text_layer``: what :func:`~pagesight.planners.llm.textlayer.run_text_layer` came to when
        it did not answer — its model usage is added to this run's, and ``text`` heads the
        summary's ``layers_tried`` when it ran."""
        if text_layer is not None and text_layer.run is not None:
            raise InvalidOption(
                "text_layer",
                "the text layer answered: its run is the result, there is no browser run to add "
                "it to",
            )
        folder = self._out or default_folder()
        recorder = RunRecorder(folder, mask=self._secrets.mask)
        recorder.start()
        try:
            result = _after_text_layer(await self._run(url, goal, recorder), text_layer)
        except BaseException as exc:
            # The error goes on to a caller who may print it (the CLI does): a planner's or a
            # page's message quoting a secret must not carry it there.
            mask_exception(exc, self._secrets)
            try:
                recorder.failed(exc)
            except OSError as secondary:
                # Records that cannot be finished (the folder went, the disk is full) must
                # not take the place of the run's own failure, which is what to fix first.
                exc.add_note(
                    "the run's records could not be finished: "
                    + self._secrets.mask(f"{type(secondary).__name__}: {secondary}")
                )
            raise
        recorder.finish(result.summary())
        return result

    async def _run(self, url: str, goal: str | None, recorder: RunRecorder) -> RunResult:
        started = time.monotonic()
        page = await self._browser.open(url, timeout=self._timeout)
        self._page = page
        session = Session(
            browser=self._browser,
            page=page,
            registry=self._registry,
            secrets=self._secrets,
            skills=self._skills,
            confirm=self._confirm,
            load_timeout=self._timeout,
        )
        # What the planner needs each observation to hold (the steps planner: selectors, to
        # match its hints and write them into steps.txt).
        include = frozenset(getattr(self._planner, "include", ()))
        history: list[StepRecord] = []
        stop: tuple[StopReason, str] | None = None
        answer: str | None = None
        streak: tuple[str | None, int] = (None, 0)
        after: Observation | None = None  # the page after the last action, if it settled
        previous: Observation | None = None
        unchanged: bytes | None = None  # the last step's screenshot, if nothing acted since
        unproven = Unproven()
        for number in range(1, self._max_steps + 1):
            clock = time.monotonic()
            if after is not None and previous is not None and include <= after.include:
                obs = passes.changes_since(after, previous)
            else:
                obs = await session.page.observe(
                    since=previous, include=include, timeout=self._timeout
                )
            session.latest = previous = obs
            observe_s = time.monotonic() - clock
            state = self._state(goal, number, obs, history, session)
            clock = time.monotonic()
            try:
                decision = await self._planner.decide(state)
            except ContextOverflow as exc:
                stop = ("context_overflow", str(exc))
                break
            decide_s = time.monotonic() - clock
            if not isinstance(decision, Action | Batch | Done | Stop):
                raise TypeError(f"{self._planner!r}.decide returned {decision!r}, not a Decision")
            decision, allowed = await self._ask_about(decision)
            drawing = await self._screenshot(session, recorder, number, obs, decision)
            clock = time.monotonic()
            try:
                if allowed:  # a person allowed this very step: it is not asked about again
                    session.confirm = replace(self._confirm, mode="never")
                calls, results = await self._act(session, decision)
            except BaseException:
                await asyncio.gather(drawing, return_exceptions=True)  # no step to show it in
                raise
            finally:
                session.confirm = self._confirm
            act_s = time.monotonic() - clock
            shot, png = await drawing
            unchanged = png if not calls and not _refs(decision) else None
            step = StepRecord(
                number=number,
                url=self._secrets.mask(obs.url),
                mode=obs.mode,
                tokens=count_tokens(state.text),
                decision=decision,
                calls=calls,
                observe_seconds=observe_s,
                decide_seconds=decide_s,
                act_seconds=act_s,
                targets=_targets(obs, decision, self._secrets),
                screenshot=shot,
            )
            recorder.step(step.to_dict())
            history.append(step)
            if self._on_step is not None:
                self._on_step(step)
            unproven.see(step, obs)
            finished = next((r for r in results if r.done), None)
            if isinstance(decision, Done) or finished is not None:
                answer = finished.answer if finished is not None else _answer(decision)
                stop = ("done", "the planner said the goal is reached")
                if unproven.outstanding is not None:
                    stop = (
                        "unproven",
                        "the planner said the goal is reached, but nothing after showed it: "
                        f"{unproven.outstanding}",
                    )
                break
            if isinstance(decision, Stop):
                stop = (decision.reason, decision.message)
                break
            person = next((r.error for r in results if r.error and r.error.reason in _PERSON), None)
            if person is not None:  # a risky step, refused with no one to ask, or declined
                stop = ("needs_person", person.message)
                break
            error = step.error
            kind, count = streak
            streak = (
                (error.reason, count + 1 if error.reason == kind else 1) if error else (None, 0)
            )
            if error is not None and streak[1] >= REPEATED_ERRORS:
                stop = (
                    "repeated_errors",
                    f"{REPEATED_ERRORS} steps in a row failed with {error.reason}: {error.message}",
                )
                break
            after = _settled_after(results, session)
        reason, message = stop or ("max_steps", f"no goal reached in {self._max_steps} steps")
        # A last step that only looked (an expect, done) saw the final page already: its
        # screenshot, which marks nothing, serves again rather than taking one more.
        final = unchanged if unchanged is not None else await self._shot(session, session.latest)
        recorder.screenshot(FINAL_SHOT, final)
        usages = [s.decision.usage for s in history if s.decision.usage is not None]
        # The record says which layer answered: vision when the page was last read from the
        # screen (the DOM offered nothing), else the DOM.
        layer: Layer = "vision" if session.latest and session.latest.mode == "vision" else "dom"
        return RunResult(
            goal=goal,
            stop_reason=reason,
            message=self._secrets.mask(message),
            answer=answer,
            steps=tuple(history),
            final_url=self._secrets.mask(session.page.url),
            rounds=sum(_answers(s.decision) for s in history),
            tokens=sum(s.tokens for s in history),
            seconds=time.monotonic() - started,
            folder=recorder.folder,
            usage=sum(usages[1:], usages[0]) if usages else None,
            layer=layer,
        )

    def _state(
        self,
        goal: str | None,
        number: int,
        obs: Observation,
        history: list[StepRecord],
        session: Session,
    ) -> State:
        async def shoot(marks: bool, only: frozenset[int] | None) -> bytes:
            marked = obs.elements if marks else ()
            if only is not None:
                marked = tuple(el for el in marked if el.id in only)
            return await self._shot(session, obs, marked=marked)

        changes = obs.changes
        delta = None
        if changes is not None and not changes.new_document and number > 1:
            delta = self._secrets.mask(obs.text())
        return State(
            goal=goal,
            step=number,
            max_steps=self._max_steps,
            url=self._secrets.mask(obs.url),
            observation=obs,
            text=self._secrets.mask(replace(obs, changes=None).text()),
            delta=delta,
            history=tuple(history),
            tools=self._shown,
            reachable=self._reachable,
            skills=self._catalog,
            legend=self._secrets.mask(obs.text("legend")) if obs.mode == "vision" else None,
            shoot=shoot,
        )

    async def _ask_about(self, decision: Decision) -> tuple[Decision, bool]:
        """The planner's own risk stop (a ``needs_person`` Stop proposing a step) put to the
        confirmer, as a risky action is: on a yes, the proposed step, to be taken without
        asking again; else the Stop, saying why."""
        proposed = decision.proposed if isinstance(decision, Stop) else None
        if proposed is None or self._confirm.ask is None or self._confirm.mode == "never":
            return decision, False
        assert isinstance(decision, Stop)
        what = proposed.label or f"{proposed.tool} {proposed.arguments}"
        risk = Risk(rule="planner_risk", action=self._secrets.mask(what), why=decision.message)
        refused = await self._confirm.decide(risk)
        if refused is None:
            return proposed, True
        return replace(decision, message=refused.message), False

    async def _act(
        self, session: Session, decision: Decision
    ) -> tuple[tuple[CallRecord, ...], tuple[ToolResult, ...]]:
        if isinstance(decision, Action):
            call = decision
        elif isinstance(decision, Batch):
            items = [{"tool": a.tool, "arguments": a.arguments} for a in decision.actions]
            call = Action(tool="batch", arguments={"actions": items})
        else:
            return (), ()
        clock = time.monotonic()
        result = await self._registry.call(call.tool, call.arguments, session)
        record = CallRecord(
            tool=call.tool,
            arguments=self._secrets.mask(call.arguments),
            text=result.text,
            value=result.value,
            error=result.error,
            seconds=time.monotonic() - clock,
        )
        return (record,), (result,)

    async def _screenshot(
        self,
        session: Session,
        recorder: RunRecorder,
        number: int,
        obs: Observation,
        decision: Decision,
    ) -> asyncio.Future[tuple[Path, bytes]]:
        """The page the decision was made on, taken now, with the elements it chose marked:
        where it was written, and the PNG. The marks are drawn and the file written in a
        thread, while the decision is carried out: await the future once it is."""
        chosen_ids = set(_refs(decision))
        chosen = tuple(el for el in obs.elements if el.id in chosen_ids)
        capture = await session.page.capture(hide=self._secrets.shown_as)

        async def finish() -> tuple[Path, bytes]:
            png = await asyncio.to_thread(self._drawn, capture, obs, chosen)
            return recorder.screenshot(step_shot(number), png), png

        return asyncio.ensure_future(finish())

    async def _shot(
        self, session: Session, obs: Observation | None, *, marked: tuple[Element, ...] = ()
    ) -> bytes:
        """A screenshot with ``marked`` elements of ``obs`` marked, and every field of
        ``obs`` that shows a secret blacked out."""
        capture = await session.page.capture(hide=self._secrets.shown_as)
        return await asyncio.to_thread(self._drawn, capture, obs, marked)

    def _drawn(
        self, capture: Capture, obs: Observation | None, marked: tuple[Element, ...]
    ) -> bytes:
        """``capture`` with ``marked`` marked and every element of ``obs`` that shows a
        secret blacked out (blocking: run it in a thread)."""
        return hide_secrets(capture, obs, self._secrets, marked=marked)


def _answer(decision: Decision) -> str | None:
    return decision.answer if isinstance(decision, Done) else None


def _answers(decision: Decision) -> int:
    """The rounds a decision took: the planner's answers, a model's responses — one for an
    action, a batch or done, and one more for each reply refused before it (``retried``) or
    request a page of many badges split into (``split``); a stop counts when a model gave it
    (it reports usage, or its raw answer is a reply), not when the loop or a script did."""
    raw = decision.raw if isinstance(decision.raw, dict) else {}
    extra = sum(len(raw[k]) for k in ("retried", "split") if isinstance(raw.get(k), list))
    if isinstance(decision, Stop) and decision.usage is None and "tool_calls" not in raw:
        return 0
    return 1 + extra


def _targets(obs: Observation, decision: Decision, secrets: Secrets) -> tuple[dict[str, Any], ...]:
    wanted = _refs(decision)
    by_id = {el.id: el for el in obs.elements if el.id in wanted}
    return tuple(secrets.mask(by_id[i].to_dict(obs.include)) for i in wanted if i in by_id)


def _refs(decision: Decision) -> list[int]:
    actions = decision.actions if isinstance(decision, Batch) else (decision,)
    out: list[int] = []
    for action in actions:
        called = _called(action) if isinstance(action, Action) else None
        if called is not None:  # its elements are marked and recorded as a direct call's
            out.extend(_refs(called))
        elif isinstance(action, Action) and action.tool == "act":
            steps = action.arguments.get("steps")
            out.extend(idsteps.refs(steps) if isinstance(steps, str) else ())
        elif isinstance(action, Action):
            for key in ("ref", "to_ref"):
                value = action.arguments.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    out.append(value)
    return out


def _called(action: Action) -> Action | None:
    """The call a ``use_tool`` action makes (``None`` for any other action, and for one that
    only reads a tool's arguments)."""
    name, inner = action.arguments.get("name"), action.arguments.get("arguments")
    if action.tool != profiles.ON_DEMAND or not isinstance(name, str) or not name:
        return None
    return Action(tool=name, arguments=inner) if isinstance(inner, dict) else None


def _after_text_layer(result: RunResult, text_layer: TextLayerResult | None) -> RunResult:
    """The browser run's result with the text layer's attempt before it counted: its usage
    added, ``text`` first among the layers tried."""
    browser: tuple[Layer, ...] = ("dom", "vision") if _read_on_screen(result) else ("dom",)
    if text_layer is None or not text_layer.tried:
        return replace(result, layers_tried=browser)
    usage, rounds = result.usage, result.rounds
    if text_layer.usage is not None:  # the model answered the text layer: one round more
        usage = text_layer.usage if usage is None else text_layer.usage + usage
        rounds += 1
    return replace(result, usage=usage, rounds=rounds, layers_tried=("text", *browser))


def _read_on_screen(result: RunResult) -> bool:
    return result.layer == "vision" or any(s.mode == "vision" for s in result.steps)


def _settled_after(results: tuple[ToolResult, ...], session: Session) -> Observation | None:
    """The page after the last action, when it settled in the tab still in use: the next
    step's observation then costs nothing."""
    last = results[-1] if results else None
    effect = last.effect if last is not None else None
    if effect is None or not effect.ready or session.latest is not effect.observation:
        return None
    return effect.observation
