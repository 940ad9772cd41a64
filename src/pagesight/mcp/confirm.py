"""A person before risky actions, over MCP: the confirm gate's question put to the user by
elicitation when the client declares it, else a tool error telling the model to ask them.

The question goes the way the connection allows:

* a 2026-07-28 connection (no server-to-client requests): the call answers with an
  ``InputRequiredResult`` holding the elicitation; the client asks its user and calls again
  with the answer, and the step runs on a yes — the retry is asked about again, so an
  answer counts only for the very question it answered: ``request_state`` holds the digests
  of the questions allowed so far and of the one asked (a batch with two risky steps takes
  two rounds; a digest, so that a secret a question may quote stays on the server);
* an older connection with a back-channel (stdio, stateful HTTP): ``ctx.elicit`` during the
  call;
* no elicitation at all: the gate's ``needs_person`` tool error, which says to ask the user.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pydantic
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.mcpserver.context import Context
from mcp.shared.exceptions import NoBackChannelError
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult

from pagesight.agent.confirm import Asker
from pagesight.guard.risk import Risk

APPROVAL = "pagesight_confirm"
"""The key of the elicitation in an ``InputRequiredResult`` (and of its answer)."""
MODERN = "2026-07-28"
"""The first protocol version without server-to-client requests during a call."""
NO_ELICITATION = (
    "this MCP client cannot ask the user (it does not support elicitation): stop and ask "
    "the user; they can take this step themselves in the browser, or restart pagesight mcp "
    "with --confirm never"
)


class Approval(pydantic.BaseModel):
    """The form the user answers."""

    go_ahead: bool = pydantic.Field(title="Go ahead", description="Allow this step")


class InputNeeded(Exception):  # not an error: a question for the client
    """The question must go back to the client as an ``InputRequiredResult`` (raised before
    anything was done; the server's call answers with :meth:`result`)."""

    def __init__(self, question: str, allowed: frozenset[str] = frozenset()) -> None:
        super().__init__(question)
        self.question = question
        self.allowed = allowed
        """The digests of the questions this call's earlier rounds were allowed."""

    def result(self, message: str) -> InputRequiredResult:
        """The elicitation, showing ``message`` (the question with secrets masked)."""
        params = ElicitRequestFormParams(
            message=message, requested_schema=render_elicitation_schema(Approval)
        )
        return InputRequiredResult(
            input_requests={APPROVAL: ElicitRequest(params=params)},
            request_state=json.dumps([*sorted(self.allowed), _digest(self.question)]),
        )


def asker(context: Context[Any, Any] | None, mask: Callable[[str], str]) -> Asker | None:
    """How to ask this call's user, or ``None`` when the client cannot be asked; ``mask``
    writes each secret in a question as ``{{NAME}}`` before the client sees it."""
    if context is None:
        return None
    try:
        capabilities = context.client_capabilities
    except ValueError:  # a call made in-process, outside any request
        return None
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None or (elicitation.form is None and elicitation.url is not None):
        return None  # none, or URL mode only: no form to answer yes or no in
    allowed, declined = _answers(context)

    async def ask(risk: Risk) -> bool:
        question = risk.question()
        digest = _digest(question)
        if digest in allowed or digest in declined:
            return digest in allowed
        if (context.protocol_version or "") >= MODERN:
            raise InputNeeded(question, allowed)
        try:
            result = await context.elicit(mask(question), Approval)
        except NoBackChannelError as exc:  # stateless HTTP: nowhere for the answer to land
            raise NoOneToAsk(risk) from exc
        return result.action == "accept" and result.data.go_ahead

    return ask


class NoOneToAsk(Exception):  # the gate's refusal, by another way
    """The client declared elicitation, but this connection cannot carry one."""

    def __init__(self, risk: Risk) -> None:
        super().__init__(risk.question())
        self.message = f"a person must allow this: {risk.action} ({risk.why}); {NO_ELICITATION}"


def _digest(question: str) -> str:
    return hashlib.sha256(question.encode()).hexdigest()


def _answers(context: Context[Any, Any]) -> tuple[frozenset[str], frozenset[str]]:
    """The digests of the questions allowed so far, and of the one just declined (a yes only
    when the form was accepted with go_ahead true); nothing on a first round or a state that
    is not ours."""
    try:
        asked = json.loads(context.request_state or "[]")
    except json.JSONDecodeError:
        return frozenset(), frozenset()
    if not isinstance(asked, list) or not asked or not all(isinstance(d, str) for d in asked):
        return frozenset(), frozenset()
    response = (context.input_responses or {}).get(APPROVAL)
    content = response.content or {} if isinstance(response, ElicitResult) else {}
    yes = isinstance(response, ElicitResult) and response.action == "accept"
    yes = yes and content.get("go_ahead") is True
    earlier, last = frozenset(asked[:-1]), asked[-1]
    return (earlier | {last}, frozenset()) if yes else (earlier, frozenset({last}))
