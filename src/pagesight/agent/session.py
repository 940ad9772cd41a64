"""Session: the live state every tool call shares — the browser, the tab in use, the latest
observation, the secrets and the skills. The agent loop makes one a run; an MCP server one
a connection."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pagesight.agent.confirm import ConfirmPolicy
from pagesight.agent.secrets import Secrets
from pagesight.agent.skills import Skills
from pagesight.observe.observation import Observation

if TYPE_CHECKING:
    from pagesight.agent.tool import PageStep, Tool, ToolResult
    from pagesight.browser.browser import AsyncBrowser
    from pagesight.browser.page import AsyncPage


class Tools(Protocol):
    """The tools a session's calls go through (the ``batch`` tool plans its actions with
    them): a :class:`~pagesight.agent.registry.ToolRegistry`, which runs
    tools in sessions and so sits above this module."""

    def __contains__(self, name: object) -> bool: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    def get(self, name: str) -> Tool: ...

    async def plan(
        self, name: str, arguments: Mapping[str, Any], session: Session
    ) -> PageStep | ToolResult: ...

    async def call(
        self, name: str, arguments: Mapping[str, Any], session: Session
    ) -> ToolResult: ...


class Session:
    """What the tools act through. ``page`` is the tab in use (the ``tabs`` tool switches
    it); ``latest`` the last observation a tool read or an action returned (``observe``'s
    ``since_last`` compares with it); ``output_dir`` the folder a screenshot asked for by
    ``filename`` is saved in (``None``: the session saves no files; the MCP server gives its
    ``--output-dir``); ``upload_dir`` the one folder files may be uploaded from (``None``: any
    file the process can read, as the agent's own run does; the MCP server gives its
    ``--upload-dir``, by default the output dir, so a model cannot send the machine's files);
    ``confirm`` which actions need a person first and how one is asked (by default none:
    see :mod:`pagesight.agent.confirm`); ``load_timeout`` the seconds a page may take to
    load when a tool navigates or goes back (the agent's ``timeout``, ``pagesight run
    --timeout``)."""

    def __init__(
        self,
        *,
        browser: AsyncBrowser,
        page: AsyncPage,
        registry: Tools,
        secrets: Secrets | None = None,
        skills: Skills | None = None,
        output_dir: Path | None = None,
        upload_dir: Path | None = None,
        confirm: ConfirmPolicy | None = None,
        load_timeout: float = 30.0,
    ) -> None:
        self.browser = browser
        self.page = page
        self.registry = registry
        self.secrets = secrets or Secrets()
        self.skills = skills or Skills.load()
        self.output_dir = output_dir
        self.upload_dir = upload_dir
        self.confirm = confirm or ConfirmPolicy()
        self.load_timeout = load_timeout
        self.latest: Observation | None = None
