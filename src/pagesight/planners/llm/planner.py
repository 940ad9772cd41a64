"""Model planners: a tool-calling model behind a one-method Protocol, and a fake of it.

:class:`ModelPlanner` keeps a :class:`~pagesight.planners.llm.context.Context`, shows the model the
registry's tools (their schemas, as the registry derives them), and turns its tool calls into
Decisions: one call an Action, several a Batch, ``done`` a Done. Every call is checked
against its tool's own pydantic model (:mod:`pagesight.planners.llm.toolcheck`) before it becomes a
Decision; a call written as text is recovered when unambiguous
(:mod:`pagesight.planners.llm.textcalls`). Providers (OpenAI-compatible servers, Anthropic)
implement :class:`Model`; :class:`ScriptedModel` plays a script instead, so a planner's
context can be tested with no network — in the spirit of httpx's MockTransport and
pydantic-ai's TestModel.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pagesight.agent.decision import Action, Batch, Decision, Done, Stop
from pagesight.agent.state import CallRecord, State
from pagesight.agent.untrusted import untrusted
from pagesight.errors import InvalidOption
from pagesight.messages import Message, ToolCall, Usage, call_id
from pagesight.models.model import Model
from pagesight.observe.passes import reads_on
from pagesight.planners.llm.context import (
    DEFAULT_BUDGET,
    DELTA,
    Context,
    effect_brief,
    system_prompt,
)
from pagesight.planners.llm.reply import Told, changed_part, tool_answer, whole_page
from pagesight.planners.llm.textcalls import read_calls
from pagesight.planners.llm.toolcheck import check_calls
from pagesight.tokens import count_tokens

DEFAULT_RETRIES = 2
"""How many times a model whose tool calls were refused is told why and asked again."""

_NUDGE = (
    "(no tool was called) Answer by calling one of the tools. When the page shows the goal "
    "is reached, call `done` (with `answer` when the goal asks a question)."
)
_IN_BATCH = "(ran in one batch with the calls after it: the answer is with the last call)"
_VISION = (
    "(the page is read off the screenshot attached: each element has a numbered badge, and "
    "the legend below lists them; pass a badge's number as `ref`)"
)


class ModelPlanner:
    """Decides by asking ``model``, keeping one whole observation in its context.

    After an action the model is shown what changed (the delta) instead of the whole page
    when that is smaller, the whole page staying in the context until a newer one replaces
    it; ``deltas=False`` shows the whole page every time. A tool call that names no tool or
    whose arguments do not fit its schema is answered with the error and the model asked
    again, up to ``retries`` times (then Stop ``model_invalid``); words with no tool call
    twice in a row stop with ``model_no_tool_call``.
    """

    def __init__(
        self,
        model: Model,
        *,
        budget: int = DEFAULT_BUDGET,
        retries: int = DEFAULT_RETRIES,
        deltas: bool = True,
    ) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise InvalidOption("budget", f"budget must be a positive int, not {budget!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise InvalidOption("retries", f"retries must be an int of 0 or more, not {retries!r}")
        if not isinstance(deltas, bool):
            raise InvalidOption("deltas", f"deltas must be True or False, not {deltas!r}")
        self._model = model
        self._budget = budget
        self._retries = retries
        self._deltas = deltas
        self._context: Context | None = None
        self._pending: tuple[ToolCall, ...] = ()
        self._delta_tokens = 0
        """Tokens of the changes shown since the last whole page."""
        self._shown_mode: str | None = None
        """How the last whole page was read (``cdp``, ``vision``): a change reads on top of
        a page read the same way only."""

    @property
    def context(self) -> Context | None:
        """The messages so far (``None`` before the first decision)."""
        return self._context

    def make_context(self, system: str) -> Context:
        """The context a run starts with (a subclass may keep more, to measure against)."""
        return Context(system=system, budget=self._budget)

    async def decide(self, state: State) -> Decision:
        context = self._context
        if context is None or state.step == 1:
            context = self._context = self.make_context(
                system_prompt(state.skills, [t.name for t in state.tools])
            )
            goal = f"goal: {state.goal}" if state.goal else "goal: (none given)"
            context.add(await self._whole(context, goal, state), observation=True)
        else:
            await self._answer_calls(context, state)
        return await self._ask(context, state)

    async def _ask(self, context: Context, state: State) -> Decision:
        """Ask the model until its reply holds valid tool calls, or the retries are spent."""
        reachable = state.reachable or state.tools
        names = {t.name for t in reachable}
        replies: list[dict[str, Any]] = []
        usage: Usage | None = None
        refused = words = 0
        while True:
            reply = await self._model.complete(context.messages, state.tools)
            if reply.usage is not None:  # every call of the decision costs, refused or not
                usage = reply.usage if usage is None else usage + reply.usage
            replies.append(reply.to_dict())
            calls, problem = _with_ids(reply.tool_calls), None
            if not calls and reply.text:
                written = read_calls(reply.text, names)
                if written is not None:
                    calls = tuple(
                        ToolCall(id=call_id("text"), name=c.name, arguments=c.arguments)
                        for c in written.calls
                    )
                    problem = written.problem
                    replies[-1]["written_calls"] = [c.to_dict() for c in calls]
            said = Message(role="assistant", content=reply.text or "", tool_calls=calls)
            if problem is None and not calls:
                words += 1
                context.add(said)
                if words >= 2:
                    text = " ".join((reply.text or "").split())
                    return Stop(
                        reason="model_no_tool_call",
                        message=(
                            "the model answered in words twice in a row without calling a "
                            f"tool: {text[:200]!r}"
                        ),
                        raw=_raw(replies),
                        usage=usage,
                    )
                context.add(Message(role="user", content=_NUDGE))
                continue
            words = 0
            checked = check_calls(calls, reachable) if problem is None else None
            if checked is not None and checked.ok:
                context.add(replace(said, tool_calls=checked.calls))
                self._pending = checked.calls
                return _decision(checked.calls, raw=_raw(replies), usage=usage)
            refused += 1
            context.add(said)
            if checked is None:
                context.add(Message(role="user", content=f"error (invalid_tool_call): {problem}"))
                why = problem or ""
            else:
                for call, error in zip(calls, checked.errors, strict=True):
                    answer = error or "not run: another call of this reply was refused"
                    context.add(Message(role="tool", content=answer, tool_call_id=call.id))
                why = "; ".join(e for e in checked.errors if e)
            if refused > self._retries:
                return Stop(
                    reason="model_invalid",
                    message=(
                        f"the model's tool calls were refused {refused} times in a row; "
                        f"the last: {why}"
                    ),
                    raw=_raw(replies),
                    usage=usage,
                )

    async def _answer_calls(self, context: Context, state: State) -> None:
        """Answer the tool calls of the last reply with their results and the page now (or
        what changed on it) after the last one, as one block (:mod:`.reply`)."""
        calls = self._pending
        last = state.history[-1] if state.history else None
        said = "\n".join(c.text for c in last.calls) if last is not None else ""
        said = said or "(no result)"
        brief = untrusted(effect_brief(said))
        # A call that read the page (observe, page_perceive) answered with the page itself:
        # its stub keeps the call, not that copy, or each read would stay in the context.
        reads = [c for c in last.calls if _read_the_page(c)] if last is not None else []
        if reads:
            brief = "\n".join(f"{c.tool} read the page" for c in reads)
        if not calls:  # nothing was called (a planner run resumed): show the page again
            message = await self._whole(context, "(no tool was called)", state)
            context.add(message, observation=True)
            return
        for call in calls[:-1]:  # a batch: one answer for all, with the last call
            context.add(Message(role="tool", content=_IN_BATCH, tool_call_id=call.id))
        call = calls[-1]
        if not reads and self._reads_a_change(state):  # a reading is a whole page: no delta
            assert state.delta is not None and last is not None
            told = Told.by(c.value for c in last.calls)
            page = changed_part(
                state.delta, state.observation, told, state.text, shown=self._delta_tokens
            )
            if page is None or page.startswith(DELTA):  # not the whole page
                if page is not None:
                    self._delta_tokens += count_tokens(page.removeprefix(f"{DELTA}\n"))
                context.add(tool_answer(said, page, brief=brief, tool_call_id=call.id))
                return
        message = await self._whole(context, said, state, brief=brief, tool_call_id=call.id)
        context.add(message, observation=True)

    def _reads_a_change(self, state: State) -> bool:
        """Whether what changed may be shown instead of the page: it is a change of the same
        document, read from the DOM the same way as the last whole page shown, which it reads
        on top of. (Whether it is worth showing, smaller than the page with the changes shown
        since, is asked of what is left once what the tools said is taken out.)"""
        if not self._deltas or state.delta is None:
            return False
        return reads_on(state.observation.mode, self._shown_mode)

    async def _whole(
        self, context: Context, lead: str, state: State, *, brief: str | None = None, **extra: Any
    ) -> Message:
        """The whole page after ``lead``: the goal, or, with ``brief`` (what its stub keeps),
        the tools' texts, in one block with the page. The page is the outline, or, once it
        is read off a screenshot, the set-of-marks picture with its legend."""
        self._delta_tokens = 0
        self._shown_mode = state.observation.mode
        page = state.text
        images: tuple[bytes, ...] = ()
        note = ""
        if state.observation.mode == "vision" and state.legend is not None:
            note, page = _VISION, state.legend
            if state.shoot is not None:
                images = (await state.screenshot(marks=True),)
        if brief is not None:
            message = tool_answer(lead, whole_page(page), brief=brief, images=images, **extra)
            if note:  # ours, not the page's: outside the markers
                message = replace(message, content=f"{message.content}\n\n{note}")
            return message
        if note:
            lead = f"{lead}\n\n{note}"
        return context.observation(lead, page, images=images, **extra)


def _read_the_page(call: CallRecord) -> bool:
    """Whether ``call`` answered with a reading of the page: an observing tool's result
    holds the page's summary (``url``, ``mode``, ``tokens``, ``elements``; see
    ``tools/_observed.py``)."""
    return call.error is None and {"url", "mode", "tokens", "elements"} <= call.value.keys()


def _with_ids(calls: tuple[ToolCall, ...]) -> tuple[ToolCall, ...]:
    """``calls`` each with an id of its own, to answer it by (some local servers send none,
    or the same one twice)."""
    ids = [c.id for c in calls]
    if all(ids) and len(set(ids)) == len(ids):
        return calls
    return tuple(replace(c, id=call_id()) for c in calls)


def _decision(calls: tuple[ToolCall, ...], *, raw: Any, usage: Usage | None) -> Decision:
    done = next((c for c in calls if c.name == "done"), None)
    if done is not None:  # checked: done comes alone
        answer = done.arguments.get("answer")
        return Done(answer=answer if isinstance(answer, str) else None, raw=raw, usage=usage)
    if len(calls) > 1 and all(c.name == "act" for c in calls):
        # Several act calls in one reply are one list of steps, run in the order given.
        steps = "\n".join(str(c.arguments.get("steps", "")) for c in calls)
        calls = (replace(calls[-1], arguments={"steps": steps}),)
    actions = tuple(
        Action(tool=c.name, arguments=dict(c.arguments), id=c.id, label=_words(c)) for c in calls
    )
    if len(actions) == 1:
        return replace(actions[0], raw=raw, usage=usage)
    return Batch(actions=actions, raw=raw, usage=usage)


def _raw(replies: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply the decision came from, with the ones refused before it (``retried``)."""
    last = dict(replies[-1])
    if len(replies) > 1:
        last["retried"] = replies[:-1]
    return last


def _words(call: ToolCall) -> str | None:
    steps = call.arguments.get("steps")
    if call.name == "act" and isinstance(steps, str):
        return "; ".join(line.strip() for line in steps.splitlines() if line.strip())
    element = call.arguments.get("element")
    return f"{call.name} {element}" if isinstance(element, str) else None
