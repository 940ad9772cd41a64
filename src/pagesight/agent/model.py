"""Model planners: a tool-calling model behind a one-method Protocol, and a fake of it.

:class:`ModelPlanner` keeps a :class:`~pagesight.agent.context.Context`, shows the model the
registry's tools (their schemas, as the registry derives them), and turns its tool calls into
Decisions: one call an Action, several a Batch, ``done`` a Done, none a Stop. Providers
(OpenAI-compatible servers, Anthropic) implement :class:`Model`; :class:`ScriptedModel`
plays a script instead, so a planner's context can be tested with no network — in the spirit
of httpx's MockTransport and pydantic-ai's TestModel.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pagesight.agent.context import DEFAULT_BUDGET, Context, Message, ToolCall, system_prompt
from pagesight.agent.decision import Action, Batch, Decision, Done, Stop, Usage
from pagesight.agent.registry import ToolSpec
from pagesight.agent.state import CallRecord, State

_ids = itertools.count(1)


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """What a model answered: its tool calls, any text, and the usage it reported."""

    tool_calls: tuple[ToolCall, ...] = ()
    text: str | None = None
    usage: Usage | None = None

    @classmethod
    def calling(cls, name: str, /, **arguments: Any) -> ModelReply:
        """A reply with one tool call (for scripts): ``ModelReply.calling("click", ref=3)``."""
        return cls(tool_calls=(ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments),))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ],
        }


class Model(Protocol):
    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """The model's reply to ``messages``, offered ``tools``."""
        ...


class ScriptedModel:
    """A fake model that answers with the next reply of ``script`` — a ModelReply, or a
    function of the messages sent that returns one. ``requests`` keeps every message list it
    was sent (as the model would have read it). Past the end it calls no tool."""

    def __init__(
        self, script: Iterable[ModelReply | Callable[[Sequence[Message]], ModelReply]]
    ) -> None:
        self._script = list(script)
        self.requests: list[tuple[Message, ...]] = []
        self.tools: list[tuple[ToolSpec, ...]] = []

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        self.requests.append(tuple(messages))
        self.tools.append(tuple(tools))
        if len(self.requests) > len(self._script):
            return ModelReply(text="(the script has no more replies)")
        item = self._script[len(self.requests) - 1]
        return item(messages) if callable(item) else item


class ModelPlanner:
    """Decides by asking ``model``, keeping one full observation in its context."""

    def __init__(self, model: Model, *, budget: int = DEFAULT_BUDGET) -> None:
        self._model = model
        self._budget = budget
        self._context: Context | None = None
        self._pending: tuple[ToolCall, ...] = ()

    @property
    def context(self) -> Context | None:
        """The messages so far (``None`` before the first decision)."""
        return self._context

    async def decide(self, state: State) -> Decision:
        context = self._context
        if context is None or state.step == 1:
            context = self._context = Context(
                system=system_prompt(state.skills), budget=self._budget
            )
            goal = f"goal: {state.goal}" if state.goal else "goal: (none given)"
            context.add(
                context.observation(
                    goal, state.text, url=state.url, elements=len(state.observation.elements)
                ),
                observation=True,
            )
        else:
            self._answer_calls(context, state)
        reply = await self._model.complete(context.messages, state.tools)
        context.add(
            Message(role="assistant", content=reply.text or "", tool_calls=reply.tool_calls)
        )
        self._pending = reply.tool_calls
        return _decision(reply)

    def _answer_calls(self, context: Context, state: State) -> None:
        """Answer the tool calls of the last reply with their results, the page now after
        the last one."""
        calls = self._pending
        last = state.history[-1] if state.history else None
        text = "\n".join(c.text for c in last.calls) if last is not None else ""
        # A call that read the page (observe, page_perceive) answered with the page itself:
        # its stub keeps the call, not that copy, or each read would stay in the context.
        reads = [c for c in last.calls if _read_the_page(c)] if last is not None else []
        kept = "\n".join(f"{c.tool} read the page" for c in reads) if reads else None
        for i, call in enumerate(calls):
            lead = text if i == 0 else "(ran in the same batch as the call before)"
            if i < len(calls) - 1:
                context.add(Message(role="tool", content=lead, tool_call_id=call.id))
            else:
                message = context.observation(
                    lead,
                    state.text,
                    url=state.url,
                    elements=len(state.observation.elements),
                    role="tool",
                    tool_call_id=call.id,
                    kept=kept if i == 0 else None,
                )
                context.add(message, observation=True)
        if not calls:  # the model answered in words last time: show it the page again
            context.add(
                context.observation(
                    "(no tool was called)",
                    state.text,
                    url=state.url,
                    elements=len(state.observation.elements),
                ),
                observation=True,
            )


def _read_the_page(call: CallRecord) -> bool:
    """Whether ``call`` answered with a reading of the page: an observing tool's result
    holds the page's summary (``url``, ``mode``, ``tokens``, ``elements``; see
    ``tools/_observed.py``)."""
    return call.error is None and {"url", "mode", "tokens", "elements"} <= call.value.keys()


def _decision(reply: ModelReply) -> Decision:
    raw, usage = reply.to_dict(), reply.usage
    calls = reply.tool_calls
    if not calls:
        return Stop(message=reply.text or "the model called no tool", raw=raw, usage=usage)
    done = next((c for c in calls if c.name == "done"), None)
    if done is not None:
        answer = done.arguments.get("answer")
        return Done(answer=answer if isinstance(answer, str) else None, raw=raw, usage=usage)
    actions = tuple(
        Action(tool=c.name, arguments=dict(c.arguments), id=c.id, label=_words(c)) for c in calls
    )
    if len(actions) == 1:
        return Action(
            tool=actions[0].tool,
            arguments=actions[0].arguments,
            id=actions[0].id,
            label=actions[0].label,
            raw=raw,
            usage=usage,
        )
    return Batch(actions=actions, raw=raw, usage=usage)


def _words(call: ToolCall) -> str | None:
    element = call.arguments.get("element")
    return f"{call.name} {element}" if isinstance(element, str) else None
