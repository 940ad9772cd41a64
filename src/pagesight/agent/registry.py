"""ToolRegistry: every tool the agent (and, later, the MCP server) offers, one a file.

The built-in tools are the modules of :mod:`pagesight.agent.tools`; a folder a user passes
adds its ``*.py`` files the same way. Each file holds one tool: an ``async def`` named as the
file (``greet.py`` defines ``greet``); files starting with ``_`` are skipped. Dropping a file
in the folder is all it takes to add a tool.

An adapter (the agent loop, an MCP server) needs only :meth:`ToolRegistry.specs` (name,
description, input schema) and :meth:`ToolRegistry.call`, which takes the arguments as a
dict and never raises for a bad call: unknown tools, arguments that do not fit the schema and
every :class:`~pagesight.errors.InputError` (a stale id, a covered element, a bad URL) come
back as a :class:`ToolResult` whose ``error`` says why. A
:class:`~pagesight.errors.RuntimeFailure` (the browser crashed) does propagate: nothing more
can be done on that page. A page step a tool returns is run, and its Effect reported, by
:mod:`pagesight.agent.results`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pydantic

from pagesight.agent import tools as builtin_tools
from pagesight.agent.results import error_result, masked, run_step
from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep, Tool, ToolResult, validation_message
from pagesight.errors import InputError, InvalidOption
from pagesight.messages import ToolSpec

if TYPE_CHECKING:
    from pagesight.agent.confirm import Refusal


class ToolRegistry:
    """The tools by name. :meth:`discover` builds the usual one."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise InvalidOption(
                    "tools", f"two tools are named {tool.name!r}; rename one of the files"
                )
            self._tools[tool.name] = tool

    @classmethod
    def discover(cls, folders: Iterable[str | Path] = ()) -> ToolRegistry:
        """The built-in tools, plus one tool for each ``*.py`` file in ``folders``."""
        modules = [
            importlib.import_module(f"{builtin_tools.__name__}.{info.name}")
            for info in pkgutil.iter_modules(builtin_tools.__path__)
            if not info.name.startswith("_")
        ]
        for folder in folders:
            modules.extend(_folder_modules(Path(folder)))
        return cls(_tool_of(module) for module in modules)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    @property
    def builtin(self) -> frozenset[str]:
        """The names of pagesight's own tools (the others are a user's)."""
        package = builtin_tools.__name__ + "."
        return frozenset(
            n for n, t in self._tools.items() if t.function.__module__.startswith(package)
        )

    def get(self, name: str) -> Tool:
        if name not in self._tools:
            raise InvalidOption(
                "tool", f"no tool named {name!r}; tools: {', '.join(sorted(self._tools))}"
            )
        return self._tools[name]

    def specs(self) -> tuple[ToolSpec, ...]:
        """Every tool's name, description and input schema."""
        return tuple(
            ToolSpec(
                name=t.name,
                description=t.description,
                input_schema=t.input_schema,
                arguments=t.arguments,
            )
            for t in self
        )

    async def plan(
        self, name: str, arguments: Mapping[str, Any], session: Session
    ) -> PageStep | ToolResult:
        """Check the arguments and run the tool's function, without running a page step it
        returns (the ``batch`` tool gathers those); a failure as a ToolResult."""
        if name not in self._tools:
            known = ", ".join(sorted(self._tools))
            return ToolResult.failure("unknown_tool", f"no tool named {name!r}; tools: {known}")
        tool = self._tools[name]
        try:
            checked = tool.check(arguments)
        except pydantic.ValidationError as exc:
            return ToolResult.failure("invalid_arguments", validation_message(name, exc))
        refused = await session.confirm.gate_call(name, checked)  # a person first, if risky
        if refused is not None:
            return _refusal(refused, session)
        try:
            out = await tool.function(session, **checked)
        except InputError as exc:
            return error_result(exc, session)
        if isinstance(out, str):
            return ToolResult(text=out)
        if not isinstance(out, PageStep | ToolResult):
            raise TypeError(f"tool {name!r} returned {type(out).__name__}, not a ToolResult")
        if isinstance(out, PageStep):  # before it runs, alone or in a batch
            refused = await session.confirm.gate_step(session, out.ref, out.action, out.args)
            if refused is not None:
                return _refusal(refused, session)
        return out

    async def call(self, name: str, arguments: Mapping[str, Any], session: Session) -> ToolResult:
        """Run the tool ``name`` with ``arguments`` (a dict, as a model or MCP client sends
        it) in ``session``: its result, with secrets masked in its text and value."""
        planned = await self.plan(name, arguments, session)
        if isinstance(planned, PageStep):
            planned = await run_step(planned, session)
        return masked(planned, session)


def _refusal(refused: Refusal, session: Session) -> ToolResult:
    return ToolResult.failure(refused.reason, session.secrets.mask(refused.message))


def _folder_modules(folder: Path) -> list[ModuleType]:
    if not folder.is_dir():
        raise InvalidOption("tools", f"the tools folder {folder} does not exist")
    # A package name of its own per folder, so two folders may each hold a `greet.py`.
    prefix = "pagesight_user_tools_" + hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:10]
    out = []
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith("_"):
            continue
        spec = importlib.util.spec_from_file_location(f"{prefix}.{path.stem}", path)
        if spec is None or spec.loader is None:
            raise InvalidOption("tools", f"{path} cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # get_type_hints looks the module up by name
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            # A user's dropped file is bad set-up: a typed error naming the file, and no
            # half-imported module left behind under its name.
            del sys.modules[spec.name]
            raise InvalidOption(
                "tools", f"{path} cannot be imported: {type(exc).__name__}: {exc}"
            ) from exc
        out.append(module)
    return out


def _tool_of(module: ModuleType) -> Tool:
    name = module.__name__.rsplit(".", 1)[-1]
    function = getattr(module, name, None)
    if function is None:
        where = getattr(module, "__file__", module.__name__)
        raise InvalidOption("tools", f"{where} must define `async def {name}(session, …)`")
    return Tool.from_function(function, name=name)
