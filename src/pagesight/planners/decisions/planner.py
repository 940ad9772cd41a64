"""DecisionsPlanner: the probability-driven agent — a set-of-marks screenshot, six questions to
the Decisions API, and the pure policy of :mod:`.policy` acting on the answers.

Each step: the elements in view are numbered on a screenshot of the 1280x800 page
(``state.screenshot(marks=True)``); the goal, the last action, the screenshot and a legend of
the badges (page text, inside the untrusted markers) go to the API with the six questions;
:func:`~pagesight.planners.decisions.policy.decide` turns the answers into a Decision. The
Decision's ``raw`` holds every probability as the API sent it (into ``run.jsonl``) and the
top candidates of each choice (for ``report.html``); its ``usage`` the request's tokens.

The API gives probabilities, never words: the only text this planner types is a value the
goal quotes (``set job title "Senior Software Engineer"``), picked by the ``value`` question.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from pagesight.agent.decision import Action, Decision
from pagesight.agent.state import State
from pagesight.errors import InvalidOption
from pagesight.messages import Usage
from pagesight.observe.elements import Element
from pagesight.planners.decisions import request
from pagesight.planners.decisions.api import (
    MAX_TILES,
    TILE,
    ChoiceAnswer,
    NoulAnswer,
    Question,
    Reply,
    ScoreAnswer,
    image_tiles,
)
from pagesight.planners.decisions.client import (
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    DecisionsClient,
    image_part,
)
from pagesight.planners.decisions.policy import NONE, Answers, Cutoffs, Situation, decide
from pagesight.vision.images import decode_png, encode_png

API_KEY_ENV = "PERPLEXITY_API_KEY"
BASE_URL_ENV = "PERPLEXITY_BASE_URL"
TOP = 3
"""Candidates of each choice kept for the report."""


class DecisionsPlanner:
    """Decides each step by asking ``client`` and applying the policy with ``cutoffs``."""

    def __init__(self, client: DecisionsClient, *, cutoffs: Cutoffs | None = None) -> None:
        if not isinstance(client, DecisionsClient):
            raise InvalidOption("client", f"client must be a DecisionsClient, not {client!r}")
        self.client = client
        self.cutoffs = cutoffs or Cutoffs()

    @classmethod
    def from_env(
        cls,
        model: str = DEFAULT_MODEL,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        cutoffs: Cutoffs | None = None,
        timeout: float = 30.0,
    ) -> DecisionsPlanner:
        """The planner ``--model decisions:MODEL`` means: the key from ``api_key`` or
        ``$PERPLEXITY_API_KEY``, the API's root from ``base_url``, ``$PERPLEXITY_BASE_URL`` or
        ``https://api.perplexity.ai``. No key: InvalidOption naming the variable to set."""
        key = api_key or os.environ.get(API_KEY_ENV)
        if not key:
            raise InvalidOption(
                "api_key",
                f"the decisions planner needs an API key: set {API_KEY_ENV} (or pass api_key)",
            )
        root = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        client = DecisionsClient(api_key=key, base_url=root, model=model, timeout=timeout)
        return cls(client, cutoffs=cutoffs)

    async def decide(self, state: State) -> Decision:
        obs = state.observation
        badges = request.marked(obs)
        values = request.quoted_values(state.goal)
        lead = [request.goal_text(state.goal), request.last_action(state)]
        replies: list[dict[str, Any]] = []
        usage = Usage()
        finalists = badges
        while len(finalists) > request.GROUP:  # more than a choice may offer: rounds of groups
            winners: list[Element] = []
            for group in request.groups(finalists):
                reply = await self._ask(state, lead, group, request.group_questions(group))
                usage += _usage(reply)
                replies.append(_record(reply, group))
                winners += _winners(reply, group)
            finalists = winners
        questions = request.page_questions(finalists, values)
        reply = await self._ask(state, lead, finalists, questions)
        usage += _usage(reply)
        answers = _answers(reply)
        decision = decide(answers, self._situation(state, finalists, values), self.cutoffs)
        raw: dict[str, Any] = {
            "request_id": reply.request_id,
            "model": reply.model,
            "answers": dict(reply.raw),
            "top": _top(answers),
            "badges": len(badges),
        }
        if replies:
            raw["split"] = replies
        return replace(decision, raw=raw, usage=usage)

    async def _ask(
        self,
        state: State,
        lead: list[str],
        badges: list[Element],
        questions: dict[str, Question],
    ) -> Reply:
        png = fit_tiles(await state.screenshot(marks=True, only=[el.id for el in badges]))
        parts: list[str | dict[str, Any]] = [*lead, image_part(png), request.legend(state, badges)]
        return await self.client.decide(parts, questions)

    def _situation(self, state: State, badges: list[Element], values: tuple[str, ...]) -> Situation:
        return Situation(
            clicked=_clicked(state),
            room_to_scroll=_room_to_scroll(state),
            handling={str(el.id): request.handling(el) for el in badges},
            options={str(el.id): el.options for el in badges if el.options},
            names={str(el.id): request.words(el) for el in badges},
            values=values,
        )


NOTHING = ChoiceAnswer(choice=NONE, probabilities={})
"""The answer to a choice not asked, because nothing on screen could be chosen."""


def fit_tiles(png: bytes) -> bytes:
    """The screenshot, scaled down when it has more tiles than the API reads (a 1280x800
    page at devicePixelRatio 2 is 2560x1600: 4,000 tiles)."""
    image = decode_png(png)
    width, height = image.size
    if image_tiles(width, height) <= MAX_TILES:
        return png
    scale = (MAX_TILES / image_tiles(width, height)) ** 0.5
    while True:
        size = (max(TILE, int(width * scale)), max(TILE, int(height * scale)))
        if image_tiles(*size) <= MAX_TILES:
            return encode_png(image.resize(size))
        scale *= 0.98


def _answers(reply: Reply) -> Answers:
    a = reply.answers

    def noul(name: str) -> NoulAnswer:
        answer = a[name]
        assert isinstance(answer, NoulAnswer)  # parse_reply checked every type
        return answer

    def choice(name: str) -> ChoiceAnswer:
        answer = a.get(name, NOTHING)  # not asked: no badge on screen
        assert isinstance(answer, ChoiceAnswer)
        return answer

    risk = a["risk"]
    assert isinstance(risk, ScoreAnswer)
    return Answers(
        blocked=noul("blocked"),
        dismiss=choice("dismiss"),
        target_visible=noul("target_visible"),
        next_action=choice("next_action"),
        goal_reached=noul("goal_reached"),
        risk=risk,
        value=choice("value") if "value" in a else None,
    )


def _winners(reply: Reply, group: list[Element]) -> list[Element]:
    """The best next_action and dismiss badges of a group, which go on to the final."""
    by_id = {str(el.id): el for el in group}
    keep: list[Element] = []
    for name in ("next_action", "dismiss"):
        answer = reply.answers[name]
        assert isinstance(answer, ChoiceAnswer)
        best = answer.top(exclude=frozenset({NONE}))
        if best is not None and by_id[best[0]] not in keep:
            keep.append(by_id[best[0]])
    return keep


def _top(answers: Answers) -> dict[str, Any]:
    """The few most probable options of each choice, and the noul and risk figures: what
    the report shows per step."""
    out: dict[str, Any] = {}
    for name in ("next_action", "dismiss", "value"):
        answer = getattr(answers, name)
        if isinstance(answer, ChoiceAnswer):
            ranked = sorted(answer.probabilities.items(), key=lambda kp: -kp[1])[:TOP]
            out[name] = [[k, p] for k, p in ranked]
    for name in ("goal_reached", "blocked", "target_visible"):
        out[name] = getattr(answers, name).p
    out["risk"] = list(answers.risk.probabilities)
    return out


def _record(reply: Reply, group: list[Element]) -> dict[str, Any]:
    return {
        "request_id": reply.request_id,
        "badges": [el.id for el in group],
        "answers": dict(reply.raw),
    }


def _usage(reply: Reply) -> Usage:
    return Usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)


def _clicked(state: State) -> frozenset[str]:
    out = set()
    for step in state.history:
        for action in _actions(step.decision):
            ref = action.arguments.get("ref")
            if action.tool == "click" and isinstance(ref, int):
                out.add(str(ref))
    return frozenset(out)


def _actions(decision: Decision) -> tuple[Action, ...]:
    if isinstance(decision, Action):
        return (decision,)
    return getattr(decision, "actions", ())


def _room_to_scroll(state: State) -> bool:
    """Something of the page lies below the screen, and the last scroll (if the last step was
    one) moved the page."""
    below = any(
        el.offscreen
        and not el.hidden_in_container
        and el.scroll_container is None
        and el.bounds is not None
        and el.bounds[1] > 0
        for el in state.observation.elements
    )
    if not below:
        return False
    last = state.history[-1] if state.history else None
    if last is None or not any(c.tool == "scroll" for c in last.calls):
        return True
    kinds = [k for c in last.calls for k in (c.value.get("kinds") or ())]
    return bool(kinds) and kinds != ["no_op"]
