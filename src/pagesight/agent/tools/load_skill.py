from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult


async def load_skill(session: Session, *, name: str) -> ToolResult:
    """Read a skill's instructions.

    Args:
        name: The skill's name, as the list of skills gives it.
    """
    skill = session.skills.get(name)
    return ToolResult(text=skill.body, value={"name": skill.name, "path": str(skill.path)})
