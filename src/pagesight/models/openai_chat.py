"""Any OpenAI-compatible chat-completions server, through the official ``openai`` SDK.

OpenAI, OpenRouter, Ollama's ``/v1``, vLLM, llama.cpp's server and LM Studio all take the same
request: the messages (an image as an ``image_url`` data URL), the tools as functions whose
``parameters`` are the registry's schemas, and the assistant's ``tool_calls`` answered by
``tool`` messages with their ``tool_call_id``.

With ``strict`` (the default for each provider below but OpenRouter) the request also asks
the server to constrain the reply, each in the one way it really enforces (``constraint``):

* ``"strict_tools"`` — OpenAI: each tool whose schema can be made strict is sent with
  ``"strict": true``, so structured outputs guarantee arguments that fit it: every property
  is required, an optional one may be ``null``, and the nulls are dropped again from the
  reply so the tool's defaults apply. A schema that cannot be strict (an object open to any
  keys, as ``batch``'s arguments) is sent as it is. Other servers ignore ``strict``.
* ``"required_tool"`` — vLLM, llama.cpp's server, LM Studio: ``tool_choice: "required"``.
  vLLM (≥ 0.8.3) then decodes with its structured-output backend against the tools'
  schemas, so the reply is one or more calls whose arguments fit them; unlike ``"auto"`` it
  needs no ``--enable-auto-tool-choice``/``--tool-call-parser`` (an older vLLM refuses the
  value with a 400, which ends the run: turn strict off). llama.cpp's server (started with
  ``--jinja``, without which it takes no tools at all) turns it into a grammar that forces a
  call of one of the tools from the first token, instead of the lazy grammar that only
  starts at the model's own tool-call marker; with some chat templates it is accepted and
  not enforced (ggml-org/llama.cpp#27217), and the reply is read as usual. LM Studio takes
  ``"none" | "auto" | "required"`` and forces a call. A tool choice cannot be paired with
  ``response_format`` on these servers (llama.cpp refuses a grammar beside tools), so
  this is the one ask.
* ``"json_schema"`` — Ollama: its ``/v1`` ignores ``tool_choice`` and does not constrain
  tool calls (its tools are parsed from the text the model wrote), but it enforces
  ``response_format: {"type": "json_schema"}`` with a grammar (Ollama ≥ 0.5). So the tools
  are still sent (its chat template shows them to the model) and the reply is constrained to
  one call as JSON, ``{"name": TOOL, "arguments": {...}}``, one of the tools with arguments
  that fit its schema (:func:`call_schema`); that reply is turned into a real tool call
  here. If Ollama parsed it as a tool call itself, that call is read; an older Ollama that
  ignores the schema answers as it always did, and the reply is read as usual.

OpenRouter passes ``strict`` on to some of its providers only, and is not asked by default.
``strict=False`` (``connect(spec, strict=False)``) asks for nothing: some local models
answer worse when forced.
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pagesight.errors import InvalidOption, ModelNotConfigured
from pagesight.messages import Message, ModelReply, ToolCall, ToolSpec
from pagesight.models import prices
from pagesight.models.base import (
    check_options,
    malformed,
    one_line,
    parse_arguments,
    token_count,
    translate,
)
from pagesight.models.retry import with_retries

if TYPE_CHECKING:
    import openai

Constraint = Literal["strict_tools", "required_tool", "json_schema"]
"""How a server is asked to constrain a reply (see the module's notes)."""
CONSTRAINTS: tuple[Constraint, ...] = ("strict_tools", "required_tool", "json_schema")
_CALL_SCHEMA_NAME = "tool_call"
_call_ids = itertools.count(1)  # of the calls read from a JSON reply, which has no ids


class OpenAIChat:
    """A :class:`~pagesight.models.model.Model` on a chat-completions server at ``base_url``
    (``None``: OpenAI's own). ``timeout``: seconds a call may take; ``retries``: how often
    a 429 or 5xx is tried again (honouring Retry-After, at most 30 s); ``strict``: ask the
    server to constrain the reply, the way ``constraint`` says (see the module's notes);
    ``provider`` names the server for the price table and the messages."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        retries: int = 2,
        strict: bool = False,
        constraint: Constraint = "strict_tools",
        max_tokens: int | None = None,
        temperature: float | None = None,
        provider: str = "openai",
    ) -> None:
        check_options(model=model, timeout=timeout, retries=retries)
        if constraint not in CONSTRAINTS:
            raise InvalidOption(
                "constraint", f"expected one of {', '.join(CONSTRAINTS)}, not {constraint!r}"
            )
        try:
            import openai
        except ImportError as exc:
            raise ModelNotConfigured(
                "OpenAI-compatible models need the openai SDK: pip install 'pagesight[openai]'"
            ) from exc
        self._sdk = openai
        self.model = model
        self.base_url = base_url
        self.timeout = float(timeout)
        self.retries = retries
        self.strict = strict
        self.constraint: Constraint = constraint
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.provider = provider
        # The SDK wants a key even for servers that take none (Ollama, LM Studio).
        self._api_key = api_key or "no-key"
        self._given_key = api_key  # the one never quoted in an error (the stand-in is no secret)

    @property
    def where(self) -> str:
        return f"{self.provider} model {self.model!r} at {self.base_url or 'api.openai.com'}"

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelReply:
        """The model's reply to ``messages``, offered ``tools``; ModelError when the server
        refuses, keeps failing, times out, or answers in another shape."""
        request: dict[str, Any] = {"model": self.model, "messages": chat_messages(messages)}
        if tools:
            request["tools"] = [self._tool(spec) for spec in tools]
            if self.strict:
                request.update(self._constrained(tools))
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        if self.temperature is not None:
            request["temperature"] = self.temperature
        completion = await with_retries(lambda: self._call(request), retries=self.retries)
        return self._reply(completion, tools)

    async def _call(self, request: dict[str, Any]) -> Any:
        try:
            async with self._connect() as client:
                return await client.chat.completions.create(**request)
        except Exception as exc:
            raise self._translate(exc) from exc

    def _connect(self) -> openai.AsyncOpenAI:
        # A client per call, closed with it: the loop a call runs in may change (a
        # captioner's thread, a test's), and a run has no end a Model is told of, to close a
        # kept one at; a connection's set-up is small beside a model's answer.
        return self._sdk.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=0,
        )

    def _translate(self, exc: Exception) -> Exception:
        hint = "OPENAI_API_KEY or --api-key" if self.provider == "openai" else "--api-key"
        if self.provider == "openrouter":
            hint = "OPENROUTER_API_KEY or --api-key"
        return translate(
            exc,
            self._sdk,
            where=self.where,
            timeout=self.timeout,
            key_hint=hint,
            model=self.model,
            api_key=self._given_key,
        )

    def _tool(self, spec: ToolSpec) -> dict[str, Any]:
        function: dict[str, Any] = {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.input_schema,
        }
        if self.strict and self.constraint == "strict_tools":
            schema = strict_schema(spec.input_schema)
            if schema is not None:
                function["parameters"] = schema
                function["strict"] = True
        return {"type": "function", "function": function}

    def _constrained(self, tools: Sequence[ToolSpec]) -> dict[str, Any]:
        """The request's fields that constrain the reply, beside the strict tools."""
        if self.constraint == "required_tool":
            return {"tool_choice": "required"}
        if self.constraint == "json_schema":
            schema = call_schema(tools)
            if schema is not None:
                return {
                    "response_format": {
                        "type": "json_schema",
                        "json_schema": {"name": _CALL_SCHEMA_NAME, "schema": schema},
                    }
                }
        return {}

    def _reply(self, completion: Any, tools: Sequence[ToolSpec]) -> ModelReply:
        try:
            message = completion.choices[0].message
            text = message.content or getattr(message, "refusal", None)
            raw_calls = message.tool_calls or []
            calls = tuple(
                ToolCall(
                    id=call.id,
                    name=call.function.name,
                    arguments=parse_arguments(call.function.arguments),
                )
                for call in raw_calls
            )
        except (AttributeError, IndexError, TypeError) as exc:
            raise malformed(self.where, f"no choices[0].message: {one_line(completion)}") from exc
        if self.strict and self.constraint == "strict_tools":
            calls = tuple(_without_nulls(call, tools) for call in calls)
        if self.strict and self.constraint == "json_schema" and not calls:
            written = call_from_json(text, tools)
            if written is not None:
                calls, text = (written,), None
        reported = getattr(completion, "usage", None)
        usage = None
        if reported is not None:
            # prompt_tokens holds every input token; prompt_tokens_details says how many of
            # them came from the prompt cache (OpenAI caches a prompt's prefix by itself)
            # and, on servers that charge for it (OpenRouter), how many were written to it.
            details = getattr(reported, "prompt_tokens_details", None)
            usage = prices.usage(
                self.provider,
                self.model,
                token_count(reported, "prompt_tokens"),
                token_count(reported, "completion_tokens"),
                cached=token_count(details, "cached_tokens"),
                written=token_count(details, "cache_write_tokens"),
            )
        return ModelReply(
            tool_calls=calls, text=text if isinstance(text, str) else None, usage=usage
        )


def chat_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The messages as chat completions take them. A tool message cannot hold an image, so
    the images of tool results follow the run of tool messages, in one user message."""
    out: list[dict[str, Any]] = []
    pending: list[bytes] = []
    for message in messages:
        if message.role != "tool" and pending:
            out.append(_user_images("the page now:", pending))
            pending = []
        if message.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            pending.extend(message.images)
        elif message.role == "assistant":
            # Content may be null only beside tool calls.
            content = message.content or (None if message.tool_calls else "")
            item: dict[str, Any] = {"role": "assistant", "content": content}
            if message.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": _json(call.arguments)},
                    }
                    for call in message.tool_calls
                ]
            out.append(item)
        elif message.images:
            out.append(_user_images(message.content, message.images, role=message.role))
        else:
            out.append({"role": message.role, "content": message.content})
    if pending:
        out.append(_user_images("the page now:", pending))
    return out


def _user_images(text: str, images: Sequence[bytes], *, role: str = "user") -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": data_url(png)}} for png in images]
    return {"role": role, "content": parts}


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


class _NotStrict(Exception):
    pass


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` as OpenAI's strict mode takes it (every property required, the optional
    ones nullable, no defaults, no open objects), or ``None`` when it cannot be."""
    try:
        out = _strict(copy.deepcopy(schema))
    except _NotStrict:
        return None
    return out if isinstance(out, dict) else None


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _strict(value) for key, value in node.items() if key != "default"}
    if out.get("type") == "object" or "properties" in out:
        if node.get("additionalProperties", False) is not False:
            raise _NotStrict  # an object open to any keys
        properties: dict[str, Any] = out.get("properties", {})
        required = set(node.get("required", ()))
        for name, prop in properties.items():
            if name not in required and not _nullable(prop):
                description = prop.pop("description", None)
                properties[name] = {"anyOf": [prop, {"type": "null"}]}
                if description is not None:
                    properties[name]["description"] = description
        out["properties"] = properties
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out


def _nullable(prop: dict[str, Any]) -> bool:
    options = prop.get("anyOf", ())
    return prop.get("type") == "null" or any(o.get("type") == "null" for o in options)


def _without_nulls(call: ToolCall, tools: Sequence[ToolSpec]) -> ToolCall:
    """Strict mode makes the model write ``null`` for an optional argument it leaves out:
    drop those, so the tool's own default applies."""
    spec = next((t for t in tools if t.name == call.name), None)
    if spec is None:
        return call
    required = set(spec.input_schema.get("required", ()))
    kept = {k: v for k, v in call.arguments.items() if v is not None or k in required}
    return ToolCall(id=call.id, name=call.name, arguments=kept)


def call_schema(tools: Sequence[ToolSpec]) -> dict[str, Any] | None:
    """The JSON schema of one call of one of ``tools``: ``{"name": TOOL, "arguments": {…}}``
    with the arguments that tool's schema takes. The tools' ``$defs`` move to the root, where
    their ``#/$defs/…`` references point; ``None`` when two tools define one name two ways."""
    defs: dict[str, Any] = {}
    options = []
    for spec in tools:
        arguments = dict(spec.input_schema)
        for name, definition in arguments.pop("$defs", {}).items():
            if defs.setdefault(name, definition) != definition:
                return None
        options.append(
            {
                "type": "object",
                "properties": {"name": {"const": spec.name}, "arguments": arguments},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    schema: dict[str, Any] = {"anyOf": options}
    if defs:
        schema["$defs"] = defs
    return schema


def call_from_json(text: object, tools: Sequence[ToolSpec]) -> ToolCall | None:
    """The call a reply constrained by :func:`call_schema` holds, or ``None`` when ``text``
    is not such a call (a server that ignored the schema; the planner reads it then)."""
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or set(value) != {"name", "arguments"}:
        return None
    name, arguments = value["name"], value["arguments"]
    if name not in {spec.name for spec in tools} or not isinstance(arguments, dict):
        return None
    return ToolCall(id=f"call_json_{next(_call_ids)}", name=name, arguments=arguments)
