"""Tool: a name, a description, a JSON schema for its arguments, and the function behind it.

The schema is derived from the function itself — its signature gives the names, types and
defaults, its docstring the description (the text before ``Args:``) and one line per
parameter (the ``Args:`` section, Google style) — by building a pydantic model of the
parameters. That same model checks the arguments before the function runs, so what a model
is shown and what is enforced can never drift apart. ::

    async def hover(session: Session, ref: int, element: str | None = None) -> PageStep:
        \"\"\"Move the pointer over an element (opens a menu that shows on hover).

        Args:
            ref: The element's id, the number in brackets in the latest observation.
            element: The element in words, as a person would name it.
        \"\"\"
        return PageStep(ref=ref, action="hover")

The first parameter, ``session``, is the agent's live :class:`~pagesight.agent.session.Session`
and is not part of the schema. A tool returns a :class:`ToolResult`, a plain ``str`` (its
text), or a :class:`PageStep`: a page action the registry runs (with secrets filled in at that
moment) and reports by its Effect — and which the ``batch`` tool can gather into one round.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, get_type_hints

import pydantic

from pagesight.act.effect import Effect
from pagesight.errors import InvalidOption
from pagesight.observe.observation import Observation

ToolFunction = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, kw_only=True)
class PageStep:
    """One page action, as ``page.batch`` takes it: ``ref`` None for a key to whatever has
    focus, the page's scroll, ``navigate`` and ``back``."""

    ref: int | None
    action: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ToolFailure:
    """Why a tool call failed, typed: ``reason`` is an ActionError's reason (``stale_id``,
    ``covered``, ``option_not_found``, …), ``invalid_arguments``, ``unknown_tool``,
    ``not_batchable``, or the pagesight error's own ``reason`` (``invalid_option``,
    ``navigation_error``, ``unsupported_url``)."""

    reason: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"reason": self.reason, "message": self.message}


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    """What a tool call gave back.

    ``text`` is what a model reads; ``value`` the same as JSON (the Effect, the matches), for
    records and MCP's structured content. Both have secrets masked as ``{{NAME}}``.
    ``observation``, ``effect`` and ``image`` are for the program that called the tool (the
    agent loop reads the page after an action from ``observation``); they are never written
    to a record as they are, and may hold a secret the page shows.
    """

    text: str
    value: dict[str, Any] = field(default_factory=dict)
    error: ToolFailure | None = None
    observation: Observation | None = None
    effect: Effect | None = None
    image: bytes | None = None
    """A PNG (the ``screenshot`` tool)."""
    done: bool = False
    """The ``done`` tool: the goal is reached; ``answer`` holds the reply, if any."""
    answer: str | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None

    @classmethod
    def failure(cls, reason: str, message: str) -> ToolResult:
        return cls(
            text=f"error ({reason}): {message}", error=ToolFailure(reason=reason, message=message)
        )


@dataclass(frozen=True, kw_only=True)
class Tool:
    """A tool a planner (or an MCP client) can call. Make one with :meth:`from_function`."""

    name: str
    description: str
    input_schema: dict[str, Any]
    """The JSON schema of the arguments, as a model (or an MCP client) sees it."""
    arguments: type[pydantic.BaseModel]
    """The pydantic model that checks the arguments (the schema above is derived from it)."""
    function: ToolFunction
    page_action: bool = False
    """The function returns a :class:`PageStep` (it is annotated so): the tool acts on the
    page and may go in a batch."""

    @classmethod
    def from_function(cls, function: ToolFunction, *, name: str | None = None) -> Tool:
        """The tool of an ``async def name(session, …)`` with a docstring whose ``Args:``
        section describes every other parameter; ``InvalidOption`` naming what is missing."""
        name = name or function.__name__
        where = f"tool {name!r} ({inspect.getsourcefile(function) or function.__module__})"
        if not inspect.iscoroutinefunction(function):
            raise InvalidOption("tools", f"{where}: a tool must be an async def function")
        summary, described = parse_docstring(inspect.getdoc(function) or "")
        if not summary:
            raise InvalidOption(
                "tools", f"{where}: give the function a docstring saying what it does"
            )
        parameters = list(inspect.signature(function).parameters.values())
        if not parameters or parameters[0].name != "session":
            raise InvalidOption("tools", f"{where}: the first parameter must be `session`")
        hints = _hints(function, where)
        fields: dict[str, Any] = {}
        for p in parameters[1:]:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise InvalidOption("tools", f"{where}: *{p.name} cannot be described to a model")
            if p.name not in hints:
                raise InvalidOption("tools", f"{where}: give `{p.name}` a type annotation")
            if p.name not in described:
                raise InvalidOption(
                    "tools", f"{where}: describe `{p.name}` in the docstring's Args: section"
                )
            default = ... if p.default is p.empty else p.default
            fields[p.name] = (hints[p.name], pydantic.Field(default, description=described[p.name]))
        unknown = sorted(set(described) - set(fields))
        if unknown:
            raise InvalidOption("tools", f"{where}: the docstring describes no parameter {unknown}")
        model = pydantic.create_model(
            _camel(name) + "Arguments",
            __config__=pydantic.ConfigDict(extra="forbid"),
            **fields,
        )
        schema = _tidy(model.model_json_schema())
        return cls(
            name=name,
            description=summary,
            input_schema=schema,
            arguments=model,
            function=function,
            page_action=hints.get("return") is PageStep,
        )

    def check(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments checked against the schema (defaults filled in); ``pydantic``'s
        ``ValidationError`` when they do not fit."""
        checked = self.arguments.model_validate(dict(arguments))
        return {name: getattr(checked, name) for name in type(checked).model_fields}


class _AnySession:
    """What ``Session`` stands for in a tool's annotations when its module does not define
    the name: only the first parameter's annotation names it, and that parameter is no part
    of the schema, so the name needs only to be known (and this module, which the session's
    sits above, need not import it)."""


def _hints(function: ToolFunction, where: str) -> dict[str, Any]:
    """The function's annotations, evaluated. A tool file may import ``Session`` (or
    ``PageStep``, ``ToolResult``) only under ``TYPE_CHECKING``, as typed code does: those
    names are known here. Any other name the module does not define is refused by name."""
    known = {"Session": _AnySession, "PageStep": PageStep, "ToolResult": ToolResult}
    # Only where the module has no such name of its own (a local namespace wins in eval).
    missing = {k: v for k, v in known.items() if k not in function.__globals__}
    try:
        return get_type_hints(function, localns=missing)
    except NameError as exc:
        raise InvalidOption(
            "tools", f"{where}: an annotation names {exc.name!r}, which its module does not define"
        ) from exc


def described(name: str, description: str, schema: Mapping[str, Any]) -> str:
    """A tool as ``use_tool`` tells a model of it before a call: its name and description,
    then its input schema as compact JSON."""
    return f"{name}: {description}\narguments: {json.dumps(schema, separators=(',', ':'))}"


def validation_message(tool: str, exc: pydantic.ValidationError) -> str:
    """``click: ref: Input should be a valid integer (got 'Save')`` — one clause a problem."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        got = f" (got {error['input']!r})" if error["type"] != "missing" else ""
        parts.append(f"{where}: {error['msg']}{got}")
    return f"{tool}: " + "; ".join(parts)


_ARG_LINE = re.compile(r"^(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary (everything before ``Args:``) and each parameter's description from the
    ``Args:`` section (``name: text``, continued on lines indented deeper)."""
    lines = doc.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    except StopIteration:
        return " ".join(doc.split()), {}
    summary = " ".join(" ".join(lines[:start]).split())
    described: dict[str, str] = {}
    current: str | None = None
    indent: int | None = None
    for line in lines[start + 1 :]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth < indent:  # the section has ended (another section, e.g. Returns:)
            break
        match = _ARG_LINE.match(line.strip())
        if depth == indent and match:
            current = match.group(1)
            described[current] = match.group(2).strip()
        elif current is not None:
            described[current] = f"{described[current]} {line.strip()}".strip()
    return summary, described


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _tidy(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without pydantic's generated titles, and an optional argument (``X | None =
    None``) written as plain ``X`` (not required, so leaving it out means None): a model pays
    tokens for each of these, and they tell it nothing. The pydantic model still accepts an
    explicit null."""

    def walk(node: Any, *, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            node = _without_null(node)
            return {
                k: walk(v, in_properties=k == "properties" and not in_properties)
                for k, v in node.items()
                if in_properties or k != "title"
            }
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    tidied: dict[str, Any] = walk(schema)
    return tidied


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """``{"anyOf": [X, {"type": "null"}], "default": null, …}`` as ``{…X, …}``."""
    options = node.get("anyOf")
    if not isinstance(options, list) or node.get("default", ...) is not None:
        return node
    kept = [o for o in options if o != {"type": "null"}]
    if len(kept) != 1 or len(kept) == len(options):
        return node
    rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
    return {**kept[0], **rest}
