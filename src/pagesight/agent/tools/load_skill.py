from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult


async def load_skill(session: Session, *, name: str) -> ToolResult:
    """Read a skill's instructions (the skills are listed in the system prompt).

    Args:
        name: The skill's name, as the list gives it.
    """
    skill = session.skills.get(name)
    return ToolResult(text=skill.body, value={"name": skill.name, "path": str(skill.path)})
