"""Which element a step's words mean, on one observation — or a refusal saying why none.

The words are ranked with find (:mod:`pagesight.observe.find`) over the elements that can take
the step's action (only fields for ``type``, only selects for ``select``, …). Words naming a
group or heading (``in "Alice Chen"``, ``Alice Chen's``, ``Alice Chen 的``) first narrow the
elements to those whose context (the nearest heading or group label) holds them; a reading
whose group the page does not have is dropped (``Sign in button`` has no group "button").

The rules, in order:

* **Enough of the words.** An element must hold at least half of the query's words (its
  keywords and CJK letters, find's ``atoms``) — all of them when it is not of the role the
  words name — else it does not match: a page with one button does not make "the Delete
  button" mean it, nor a search field "Search contacts" "the Delete contact button".
* **A hint.** A recorded selector (``@ SELECTOR``) is taken when the element that has that
  selector now is the best by the words, or one of its twins (below); otherwise the step is
  resolved by its words alone and reported ``healed``.
* **The margin.** When the runner-up scores within ``max(3, 10% of the best)`` points of the
  best (3 is one keyword of find's weights), the two are too close to call: the step is refused
  with both, never guessed — unless exactly one of them is named what the words name (find's
  ``exact`` rule: the button "Save" for "the Save button", beside a Cancel button whose id is
  ``save``).
* **A hint** only chooses between the best and its twins (same role, same name, too close to
  call): it never turns the words to an element they rank lower for what it is.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from pagesight.observe import find as finding
from pagesight.observe.elements import Element
from pagesight.observe.observation import Observation
from pagesight.runs.grammar import Target

MARGIN_POINTS = finding.WEIGHTS.keyword
MARGIN_SHARE = 0.1
MIN_WORDS_SHARE = 0.5
SHOWN = 3
"""Candidates a refusal lists."""

How = Literal["words", "hint", "healed"]


def margin(best: float) -> float:
    """How close a runner-up may come to the best before the two are too close to call."""
    return max(MARGIN_POINTS, MARGIN_SHARE * best)


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """An element the words matched, and how well."""

    element: Element
    score: float
    selector: str | None

    def describe(self) -> str:
        """``[12] button "Edit" in "Alice Chen"  score 14  @ #edit-1``"""
        el = self.element
        context = f" in {_q(el.context)}" if el.context else ""
        at = f"  @ {self.selector}" if self.selector else ""
        return f"[{el.id}] {el.role} {_q(el.name)}{context}  score {self.score:g}{at}"

    def to_dict(self) -> dict[str, object]:
        el = self.element
        return {
            "id": el.id,
            "role": el.role,
            "name": el.name,
            "context": el.context,
            "score": self.score,
            "selector": self.selector,
        }


@dataclass(frozen=True, kw_only=True)
class Resolved:
    """The element a target means. ``how``: by its ``words``, by its ``hint`` (the recorded
    selector still names it), or ``healed`` (the hint names no such element any more and the
    words found it)."""

    candidate: Candidate
    how: How
    words: str
    """The query that found it (the group words taken out)."""
    context: str | None
    runners_up: tuple[Candidate, ...]

    @property
    def element(self) -> Element:
        return self.candidate.element


@dataclass(frozen=True, kw_only=True)
class Refused:
    """No element, or two too close to call: ``reason`` and the best ``candidates``."""

    reason: Literal["target_not_found", "target_ambiguous"]
    message: str
    candidates: tuple[Candidate, ...]


def selector_of(el: Element) -> str | None:
    path = el.markup.path if el.markup is not None else ()
    return " >> ".join(path) if path else None


def resolve(
    obs: Observation, target: Target, *, accepts: Collection[str] | None = None
) -> Resolved | Refused:
    """The element of ``obs`` that ``target`` means, among those whose actions include one of
    ``accepts`` (all elements when ``None``)."""
    elements = [el for el in obs.elements if accepts is None or set(accepts) & set(el.actions)]
    kind = "element" if accepts is None else "element that takes " + " or ".join(sorted(accepts))
    seen: list[Candidate] = []
    for words, context in target.splits():
        pool = elements if context is None else _in_context(elements, context)
        if not pool or not words:
            continue
        ranked = _rank(pool, words)
        seen = seen or ranked
        if not ranked:
            continue
        return _choose(ranked, target, words, context)
    where = ""
    best = seen or _rank(obs.elements, target.query, enough=0.0)
    if best:
        where = "; the closest: " + "; ".join(c.describe() for c in best[:SHOWN])
    return Refused(
        reason="target_not_found",
        message=f"no {kind} matches {target.query!r} (holding at least half its words){where}",
        candidates=tuple(best[:SHOWN]),
    )


def _choose(
    ranked: list[Candidate], target: Target, words: str, context: str | None
) -> Resolved | Refused:
    best = ranked[0]
    exact = _exactly_named(words)
    close = [
        c
        for c in ranked[1:]
        if c.score >= best.score - margin(best.score) and exact(c) == exact(best)
    ]
    if target.hint is not None:
        # The hint picks the best, or one of its twins (same role and name): never an
        # element the words rank lower for what it is (an id "save" on a Cancel button).
        twins = [c for c in close if (c.element.role, c.element.name) == _kind(best)]
        hinted = next((c for c in [best, *twins] if c.selector == target.hint), None)
        if hinted is not None:
            others = tuple(c for c in ranked if c is not hinted)
            return Resolved(
                candidate=hinted, how="hint", words=words, context=context, runners_up=others
            )
    if close:
        listed = "; ".join(c.describe() for c in [best, *close][:SHOWN])
        group = ' in "…" (its group or heading)' if context is None else ""
        return Refused(
            reason="target_ambiguous",
            message=(
                f"{len(close) + 1} elements match {words!r} too closely to tell apart (within "
                f"{margin(best.score):g} points): {listed}; name the one you mean more "
                f"precisely{group}"
            ),
            candidates=(best, *close),
        )
    how: How = "words" if target.hint is None else "healed"
    return Resolved(
        candidate=best, how=how, words=words, context=context, runners_up=tuple(ranked[1:])
    )


def _kind(c: Candidate) -> tuple[str, str]:
    return c.element.role, c.element.name


def _exactly_named(words: str) -> Callable[[Candidate], bool]:
    """Whether a candidate's whole name is what the words name (find's ``exact`` rule)."""
    q = finding.Query.parse(words)
    return lambda c: finding.exact_name(q, finding.Target.of(c.element)) > 0


def _in_context(elements: Sequence[Element], context: str) -> list[Element]:
    """The elements whose group or heading holds ``context`` (or is held by it: "the Alice
    Chen card" holds the card's "Alice Chen")."""
    want = finding.normalise(context)
    out = []
    for el in elements:
        if not el.context:
            continue
        have = finding.normalise(el.context)
        if want in have or (len(have) > 1 and have in want):
            out.append(el)
    return out


def _rank(
    elements: Sequence[Element], words: str, *, enough: float = MIN_WORDS_SHARE
) -> list[Candidate]:
    """find's matches for ``words`` that hold at least ``enough`` of its words, best first."""
    if not finding.normalise(words):
        return []
    q = finding.Query.parse(words)
    out = []
    for match in finding.find(elements, words, top=max(len(elements), 1)):
        if q.atoms and enough > 0:
            text = finding.Target.of(match.element).text
            held = sum(1 for a in q.atoms if a in text)
            if held == 0 or held < enough * len(q.atoms):
                continue
            # Of another role than the words name ("the Delete contact button", a search
            # field "Search contacts"), it must hold every word.
            if q.roles and match.element.role not in q.roles and held < len(q.atoms):
                continue
        out.append(
            Candidate(element=match.element, score=match.score, selector=selector_of(match.element))
        )
    return out


def _q(text: str | None) -> str:
    import json

    return json.dumps(text or "", ensure_ascii=False)
