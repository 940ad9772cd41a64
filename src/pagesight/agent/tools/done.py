from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult


async def done(session: Session, *, answer: str | None = None) -> ToolResult:
    """Say the goal is reached (check the page shows it first); this ends the run.

    Args:
        answer: The answer, when the goal asked a question.
    """
    text = "done" if answer is None else f"done: {answer}"
    return ToolResult(text=text, value={"answer": answer}, done=True, answer=answer)
