"""What the observing tools share: an observation as a ToolResult."""

from __future__ import annotations

from typing import Any

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.observe.observation import Observation


def observed(session: Session, obs: Observation, text: str, **value: Any) -> ToolResult:
    """The result of a tool that read the page: ``text`` for the model, a compact value for
    the record (not the whole tree), and ``obs`` as the session's latest observation."""
    session.latest = obs
    summary = {
        "url": obs.url,
        "title": obs.title,
        "mode": obs.mode,
        "tokens": obs.tokens,
        "elements": len(obs.elements),
        **value,
    }
    return ToolResult(text=text, value=summary, observation=obs)
