"""Context: the message list a model planner sends, kept to one full observation.

Each observation enters as a message together with what led to it (the goal, or the last
action's effect). When a newer one arrives, the older collapses to its stub: the goal or the
action and its effect stay, the element list goes. So the context grows by a few lines a
step, not by a page a step. Every message's tokens are counted (cl100k, as observations are);
past the budget (default 128,000) :class:`~pagesight.errors.ContextOverflow` says by how much.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pagesight.agent.untrusted import RULE, untrusted
from pagesight.errors import ContextOverflow, InvalidOption
from pagesight.messages import Message, Role

DEFAULT_BUDGET = 128_000
_PER_MESSAGE = 4
"""Tokens a chat format spends on a message's role and separators (OpenAI's figure)."""


def system_prompt(skills: str, tools: Sequence[str] = ("act",)) -> str:
    """What a model is told once: its job, how to read the page and act on it (with ``act``,
    one step a line, when the model is shown that tool; else one tool a call), and the skill
    catalog. The same text every round, so that a provider's prompt cache holds it."""
    if "act" in tools:
        acting = (
            "Act with `act`, one step a line: fill a form and submit it in one call, ending "
            'with expect "text" and done when the result will show. Done ("answer" to a '
            "question) ends the task."
        )
    else:
        acting = (
            "Pass an element's id as `ref`; put several actions in a `batch`. Once the page "
            "shows the result, call `done` (with `answer` to a question)."
        )
    lines = [
        "You drive a web browser with tools to reach the user's goal.",
        "The page comes as an outline; each element you can act on has an id: [4].",
        acting,
        "Each action answers with its effect and the page after, or what changed (+ added, "
        "- removed, ~ changed). A page read off a screenshot shows each id on a badge. Older "
        "pages are dropped.",
        RULE,
    ]
    if skills:
        lines += ["", "Skills (read one with load_skill when it helps):", skills]
    return "\n".join(lines)


class Context:
    """The messages so far. ``budget``: the most tokens they may hold."""

    def __init__(self, *, system: str, budget: int = DEFAULT_BUDGET) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise InvalidOption("budget", f"budget must be a positive int, not {budget!r}")
        self.budget = budget
        self._messages: list[Message] = []
        self._tokens: list[int] = []
        self.add(Message(role="system", content=system))

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    @property
    def tokens(self) -> int:
        return sum(self._tokens)

    def add(self, message: Message, *, observation: bool = False) -> None:
        """Append ``message``; with ``observation`` (it holds the whole page now), every
        earlier message holding a page or a change of it collapses to its stub, its images
        going too. A change (an answer holding what changed) is added without
        ``observation``: it stays until the next whole page, since it reads only on top of
        the page before it. Raises ContextOverflow past the budget."""
        if observation:
            for i, old in enumerate(self._messages):
                if old.stub is not None:
                    self._messages[i] = replace(old, content=old.stub, stub=None, images=())
                    self._tokens[i] = self._messages[i].tokens
        self._messages.append(message)
        self._tokens.append(message.tokens)
        if self.tokens > self.budget:
            raise ContextOverflow(
                f"the model's context holds {self.tokens:,} tokens, over its budget of "
                f"{self.budget:,}; give a larger budget, or a goal that needs fewer steps",
                tokens=self.tokens,
                budget=self.budget,
            )

    def observation(
        self,
        lead: str,
        page: str,
        *,
        role: Role = "user",
        brief: str | None = None,
        **extra: Any,
    ) -> Message:
        """A message holding the page now after ``lead`` (the goal), whose stub keeps
        ``brief`` (default ``lead``) and drops the page. ``page`` came from the page, so it
        goes inside the untrusted-content markers (``lead`` is the caller's to wrap). A tool
        call's answer is one block, the tools' texts and the page together
        (:func:`~pagesight.planners.llm.reply.tool_answer`)."""
        return Message(
            role=role,
            content=f"{lead}\n\n{FULL}\n{untrusted(page)}",
            stub=f"{brief or lead}\n(page dropped)",
            **extra,
        )


FULL = "page now:"
"""What leads a whole page in a message."""
DELTA = "what changed on the page (the rest is as before):"
"""What leads a change of the page in a message."""


_KEPT_DETAILS = ("url:", "value ", "new tab", "download:", "dialog ")


def effect_brief(text: str) -> str:
    """What an action's answer keeps once its page is dropped: each action's headline
    (``click [9] -> navigation``) and the details a later step may need (where it went, what
    was typed, tabs, downloads, dialogs), not the list of elements that changed."""
    kept = [
        line
        for line in text.splitlines()
        if not line.startswith(" ")  # a headline
        or (line.startswith("  ") and line[2:].startswith(_KEPT_DETAILS))
    ]
    return "\n".join(kept)


def collapsed(messages: Sequence[Message]) -> int:
    """How many of ``messages`` still hold a page or a change of it (a whole page and the
    changes since: 1 and up)."""
    return sum(1 for m in messages if m.stub is not None)


def whole_pages(messages: Sequence[Message]) -> int:
    """How many of ``messages`` hold a whole page (1 in a well-kept context)."""
    return sum(1 for m in messages if m.stub is not None and f"\n{FULL}\n" in m.content)
