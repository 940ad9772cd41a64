from __future__ import annotations

from typing import Any

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult, described


async def use_tool(
    session: Session, *, name: str, arguments: dict[str, Any] | None = None
) -> ToolResult:
    """Call a tool not listed here by name; without arguments, read what it takes.

    Args:
        name: The tool's name.
        arguments: Its arguments.
    """
    registry = session.registry
    if name == "use_tool" or name not in registry:
        known = ", ".join(n for n in registry.names if n != "use_tool")
        return ToolResult.failure("unknown_tool", f"no tool named {name!r}; tools: {known}")
    if arguments is None:
        tool = registry.get(name)
        return ToolResult(text=described(name, tool.description, tool.input_schema))
    return await registry.call(name, arguments, session)
