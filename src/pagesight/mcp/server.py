"""The MCP server: the agent's tool registry served under Playwright MCP's tool names.

:class:`PagesightMCP` is the SDK's ``MCPServer`` whose tool listing and tool calls go to the
:class:`~pagesight.agent.registry.ToolRegistry` instead of the SDK's own tool manager (which
would derive a second schema from Python signatures): an MCP tool's input schema is its
registry tool's, and a call is the registry's ``call``. What comes back is a tool result
(``isError`` with the typed reason when it failed), never a protocol error or a traceback,
and the server outlives the browser: when it dies the next call says so, and
``browser_navigate`` starts a fresh one. A step the ``confirm`` policy says needs a person
is put to the user by elicitation (:mod:`pagesight.mcp.confirm`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, overload

import pydantic
from mcp.server import MCPServer
from mcp.server.mcpserver.context import Context
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from mcp_types import Tool as MCPTool

from pagesight.agent.confirm import Asker, ConfirmPolicy
from pagesight.agent.profiles import DEFAULT_PROFILE, ON_DEMAND, Profile, check_profile
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.secrets import mask_exception
from pagesight.agent.session import Session
from pagesight.agent.tool import described, validation_message
from pagesight.agent.untrusted import RULE
from pagesight.errors import PageCrashed, PagesightError, PageUnresponsive, RuntimeFailure
from pagesight.mcp import names
from pagesight.mcp.browsers import BrowserHolder, BrowserOptions, Holders
from pagesight.mcp.confirm import NO_ELICITATION, InputNeeded, NoOneToAsk, asker
from pagesight.mcp.results import content, failure, masked

INSTRUCTIONS = (
    "A browser. Address an element by its id, the number in brackets in the latest snapshot "
    "([4] in browser_act's steps, `ref` elsewhere). "
    "Every action answers with its effect and the page after it (the whole page, or only "
    "what changed), so a separate snapshot is rarely needed. " + RULE
)
_GONE = "call browser_navigate to start a fresh browser (tabs, cookies and history are lost)"
_TAB_GONE = "call browser_navigate to open a fresh tab, or browser_tabs to use another"
_ANSWER_S = 2.0
"""How long a tab that hung on the last call is given to answer before the next is refused."""

_NONE: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
"""The input schema of ``browser_close``: no arguments."""

log = logging.getLogger("pagesight.mcp")


class PagesightMCP(MCPServer[Any]):
    """pagesight's tools over MCP. ``tools``: the profile listed (``core``, ``vision`` with
    the screenshot and coordinate tools, ``full``: every tool; every tool can be called
    whatever is listed); ``confirm`` which steps need the user's yes (by default the risky
    ones)."""

    def __init__(
        self,
        options: BrowserOptions,
        *,
        registry: ToolRegistry | None = None,
        tools: Profile = DEFAULT_PROFILE,
        confirm: ConfirmPolicy | None = None,
    ) -> None:
        super().__init__(name="pagesight", instructions=INSTRUCTIONS, log_level="WARNING")
        self._registry = registry or ToolRegistry.discover()
        self._offered = {o.name: o for o in names.offered(self._registry)}
        self._listed = names.listed(self._registry, check_profile(tools))
        self._unlisted = names.unlisted(self._registry, tools)
        self.holders = Holders(self._registry, options)
        self._secrets = options.secrets
        self._confirm = replace(
            confirm or ConfirmPolicy(mode="risky"), ask=None, no_one_to_ask=NO_ELICITATION
        )
        # Attached, the server starts no browser: browser_navigate attaches again.
        self._gone_advice = (
            _GONE
            if options.cdp_url is None
            else "call browser_navigate to attach again once a browser answers at "
            f"{options.cdp_url}"
        )

    async def list_tools(self) -> list[MCPTool]:
        tools = [
            MCPTool(name=name, description=o.spec.description, input_schema=o.spec.input_schema)
            for name, o in self._offered.items()
            if name in self._listed
        ]
        if self._unlisted:
            use = self._registry.get(ON_DEMAND)
            listing = f"{use.description} Tools: {', '.join(self._unlisted)}."
            tools.append(
                MCPTool(name=names.USE_TOOL, description=listing, input_schema=use.input_schema)
            )
        tools.append(
            MCPTool(name=names.CLOSE, description=names.CLOSE_DESCRIPTION, input_schema=_NONE)
        )
        return tools

    @overload
    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: None = None
    ) -> CallToolResult: ...

    @overload
    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult: ...

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """A tool's result; with a request's ``context``, an ``InputRequiredResult`` asking
        the user about a risky step (2026-07-28 clients that declare elicitation)."""
        holder = self.holders.get(_connection(context))
        ask = asker(context, self._secrets.mask)
        async with holder.lock:  # one call at a time on a connection's page
            try:
                result = await self._call(holder, name, arguments, ask)
            except InputNeeded as needed:  # nothing was done: the user is asked, then a retry
                return needed.result(self._secrets.mask(needed.question))
            except NoOneToAsk as nobody:
                result = failure("needs_person", nobody.message)
        # Every text the client gets, the page after an action and any error included, with
        # each secret written {{NAME}} (an image is blacked out where it shows one).
        return masked(result, self._secrets)

    def _confirmed(self, session: Session, ask: Asker | None) -> Session:
        """``session`` asking this call's user (elicitation) before a risky step."""
        session.confirm = replace(self._confirm, ask=ask)
        return session

    async def _call(
        self, holder: BrowserHolder, name: str, arguments: dict[str, Any], ask: Asker | None
    ) -> CallToolResult:
        if name == names.CLOSE:
            if arguments:  # its schema takes none: refused as the registry refuses extras
                extra = "; ".join(f"{key}: Extra inputs are not permitted" for key in arguments)
                return failure("invalid_arguments", f"{names.CLOSE}: {extra}")
            closed = await holder.close()
            text = "browser closed; the next call starts a fresh one" if closed else "no browser"
            return CallToolResult(content=[TextContent(text=text)])
        if name == names.USE_TOOL:
            return await self._use_tool(holder, arguments, ask)
        offered = self._offered.get(name)
        if offered is None:
            known = ", ".join([*self._offered, names.CLOSE])
            return failure("unknown_tool", f"no tool named {name!r}; tools: {known}")
        gone = holder.gone()
        if gone is not None:
            if name != names.NAVIGATE:
                return failure("browser_gone", f"{gone.what}; {self._gone_advice}")
            await holder.close()  # and browser_navigate launches a fresh one below
        try:
            session = self._confirmed(await holder.open(), ask)
        except PagesightError as exc:
            return failure(exc.reason, f"cannot start the browser: {exc}")
        # A tab that hung on the last call is asked first (browser_tabs may leave it).
        if holder.hung is session.page and name != names.TABS:
            if name == names.NAVIGATE:  # it goes on in a fresh tab, as the model was told
                session = self._confirmed(await holder.fresh_tab(), ask)
            # A tab that went meanwhile (crashed, or closed) does not answer either: the call
            # goes on and says what went, not that a script keeps the tab busy.
            elif not await session.page.answers(_ANSWER_S) and not (
                session.page.closed or session.page.crashed
            ):
                said = f"{session.page.url} still does not answer (a script keeps it busy)"
                return failure("page_unresponsive", f"{said}; {_TAB_GONE}", quotes_page=True)
            holder.hung = None
        before = session.latest
        try:
            try:
                result = await self._registry.call(offered.spec.name, arguments, session)
            except PageCrashed:
                if name != names.NAVIGATE or await holder.lost() is not None:
                    raise
                # The tab went (its renderer crashed, or the page closed it) and the browser
                # lives: browser_navigate goes on in a fresh tab, as the model was told.
                session, before = self._confirmed(await holder.fresh_tab(), ask), None
                result = await self._registry.call(offered.spec.name, arguments, session)
        except RuntimeFailure as exc:
            gone = await holder.lost()
            if gone is not None:
                return failure("browser_gone", f"{gone.what}; {self._gone_advice}")
            if isinstance(exc, PageCrashed):  # the library's advice is no MCP tool
                return failure(exc.reason, f"{exc.what}; {_TAB_GONE}", quotes_page=True)
            if isinstance(exc, PageUnresponsive):
                holder.hung = session.page
                return failure(exc.reason, f"{exc}; {_TAB_GONE}", quotes_page=True)
            return failure(exc.reason, str(exc), quotes_page=True)
        except PagesightError as exc:
            return failure(exc.reason, str(exc), quotes_page=True)
        except (InputNeeded, NoOneToAsk):  # a question for the user, not a failure
            raise
        except Exception as exc:  # a bug in pagesight: the traceback to the log, not the model
            mask_exception(exc, self._secrets)  # the log is written too: no secret in it
            log.exception("tool %s failed", name)
            return failure(
                "internal_error",
                f"{type(exc).__name__}: {exc}. This is a bug in pagesight; the page may be "
                "in any state: take a browser_snapshot before going on",
                quotes_page=True,
            )
        return content(result, before=before)

    async def _use_tool(
        self, holder: BrowserHolder, arguments: dict[str, Any], ask: Asker | None
    ) -> CallToolResult:
        """``browser_use_tool``: the tool it names called with its arguments, or, without
        them, that tool's description and input schema."""
        use = self._registry.get(ON_DEMAND)
        try:
            checked = use.check(arguments)
        except pydantic.ValidationError as exc:
            return failure("invalid_arguments", validation_message(names.USE_TOOL, exc))
        name, inner = checked["name"], checked["arguments"]
        offered = self._offered.get(name)
        if name == names.CLOSE:  # the server's own, reached as the unknown name's error says
            about = (names.CLOSE_DESCRIPTION, _NONE)
        elif offered is not None:
            about = (offered.spec.description, offered.spec.input_schema)
        else:
            known = ", ".join([*self._offered, names.CLOSE])
            return failure("unknown_tool", f"no tool named {name!r}; tools: {known}")
        if inner is None:
            return CallToolResult(content=[TextContent(text=described(name, *about))])
        return await self._call(holder, name, inner, ask)


def _connection(context: Context[Any, Any] | None) -> str | None:
    """Which connection a call came on: the HTTP transport's session id (``None`` on stdio,
    which has one connection, and for an HTTP client that keeps no session)."""
    if context is None:
        return None
    try:
        headers = context.headers
    except ValueError:  # a call made in-process, outside any request
        return None
    return headers.get("mcp-session-id") if headers is not None else None
