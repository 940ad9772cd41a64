"""Token budgets: keep every element that can be acted on, spend what is left on text."""

from __future__ import annotations

from dataclasses import replace

from pagesight.observe.observation import Observation
from pagesight.observe.passes import drop_text, least_useful_text, shorten_text

_SHORTEN_STEPS = (300, 160, 80, 40)


def fit_tokens(obs: Observation, max_tokens: int) -> Observation:
    """Shorten, then drop, the least useful text until the outline fits ``max_tokens``.

    Elements with ids are never cut; if they alone exceed the budget the result says so.
    """
    if obs.tokens <= max_tokens:
        return obs
    tree = obs.tree
    shortened = 0
    for limit in _SHORTEN_STEPS:
        tree, cut = shorten_text(tree, limit)
        shortened = max(shortened, cut)
        note = (
            f"shortened {shortened} long texts to fit {max_tokens} tokens; use focus= to read more"
        )
        candidate = replace(obs, tree=tree, notes=(*obs.notes, note))
        if candidate.tokens <= max_tokens:
            return candidate

    order = least_useful_text(tree)

    def dropping(k: int) -> Observation:
        kept = drop_text(tree, {id(n) for n in order[:k]})
        note = (
            f"cut to fit {max_tokens} tokens: shortened {shortened} and dropped {k} of "
            f"{len(order)} texts (repeats and long paragraphs first); use focus= to read more"
        )
        return replace(obs, tree=kept, notes=(*obs.notes, note))

    lo, hi = 1, len(order)
    if dropping(hi).tokens > max_tokens:
        over = dropping(hi)
        note = f"the {len(obs.elements)} actionable elements alone exceed {max_tokens} tokens"
        return replace(over, notes=(*over.notes, note))
    while lo < hi:  # the fewest drops that fit
        mid = (lo + hi) // 2
        if dropping(mid).tokens <= max_tokens:
            hi = mid
        else:
            lo = mid + 1
    return dropping(lo)
