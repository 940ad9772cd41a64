"""``PROVIDER:MODEL``: which server a model is on, its key and its base URL.

A model is named ``openai:gpt-4.1-mini``, ``anthropic:claude-haiku-4-5``,
``ollama:qwen2.5-vl:7b`` (everything after the first colon is the model's own name, colons
and all) or ``openrouter:openai/gpt-4.1-mini``. :func:`resolve` finds its key and base URL —
the options given first, then the provider's usual environment variables — and checks that
the provider's SDK is installed, so that a run that cannot call its model fails with one line
before a browser starts. :func:`connect` opens the :class:`~pagesight.models.model.Model`.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from pagesight.errors import InvalidOption, ModelNotConfigured

if TYPE_CHECKING:
    from pagesight.models.anthropic_messages import AnthropicMessages
    from pagesight.models.openai_chat import Constraint, OpenAIChat

Api = Literal["openai", "anthropic"]


@dataclass(frozen=True, kw_only=True)
class Provider:
    """A kind of server: the API it speaks and where its key and URL usually are."""

    name: str
    api: Api
    key_env: str | None
    """The environment variable holding its key (``None``: it needs none)."""
    base_env: str | None
    default_base: str | None
    """Its URL when none is given (``None``: the SDK's own, the vendor's service)."""
    strict: bool = False
    """Ask, by default, for a reply constrained to the tools' schemas, as ``constraint``
    says."""
    constraint: Constraint = "strict_tools"
    """How the server constrains a reply: OpenAI's strict tools, ``tool_choice: "required"``
    (vLLM, llama.cpp, LM Studio) or a ``response_format`` JSON schema of one tool call
    (Ollama); the reasons are in :mod:`pagesight.models.openai_chat`."""
    needs_key: bool = True


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            name="openai",
            api="openai",
            key_env="OPENAI_API_KEY",
            base_env="OPENAI_BASE_URL",
            default_base=None,
            strict=True,
        ),
        Provider(
            name="anthropic",
            api="anthropic",
            key_env="ANTHROPIC_API_KEY",
            base_env="ANTHROPIC_BASE_URL",
            default_base=None,
        ),
        Provider(
            name="openrouter",
            api="openai",
            key_env="OPENROUTER_API_KEY",
            base_env="OPENROUTER_BASE_URL",
            default_base="https://openrouter.ai/api/v1",
        ),
        Provider(
            name="ollama",
            api="openai",
            key_env=None,
            base_env="OLLAMA_HOST",
            default_base="http://127.0.0.1:11434",
            needs_key=False,
            strict=True,
            constraint="json_schema",
        ),
        Provider(
            name="vllm",
            api="openai",
            key_env="VLLM_API_KEY",
            base_env="VLLM_BASE_URL",
            default_base="http://127.0.0.1:8000/v1",
            needs_key=False,
            strict=True,
            constraint="required_tool",
        ),
        Provider(
            name="lmstudio",
            api="openai",
            key_env=None,
            base_env="LMSTUDIO_BASE_URL",
            default_base="http://127.0.0.1:1234/v1",
            needs_key=False,
            strict=True,
            constraint="required_tool",
        ),
        Provider(
            name="llamacpp",
            api="openai",
            key_env=None,
            base_env="LLAMACPP_BASE_URL",
            default_base="http://127.0.0.1:8080/v1",
            needs_key=False,
            strict=True,
            constraint="required_tool",
        ),
    )
}
"""Every provider ``--model`` knows, by the name before the colon."""

_EXTRA = {"openai": "openai", "anthropic": "anthropic"}
"""The SDK (and the pagesight extra that installs it) of each API."""


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """A model, resolved: the provider, the model's own name, where and how to call it."""

    provider: Provider
    model: str
    base_url: str | None
    """``None``: the SDK's default (the vendor's own service)."""
    api_key: str | None = field(repr=False)

    @property
    def name(self) -> str:
        """``provider:model``, as ``--model`` spells it (and the price table keys it)."""
        return f"{self.provider.name}:{self.model}"


def parse_model(text: str) -> tuple[str, str]:
    """``"ollama:qwen2.5-vl:7b"`` -> ``("ollama", "qwen2.5-vl:7b")``; InvalidOption
    (``model``) when it is not ``PROVIDER:MODEL``."""
    provider, sep, model = (text or "").partition(":")
    if not sep or not provider.strip() or not model.strip():
        raise InvalidOption(
            "model",
            f"expected PROVIDER:MODEL such as openai:gpt-4.1-mini, not {text!r}; "
            f"providers: {', '.join(PROVIDERS)}",
        )
    return provider.strip().lower(), model.strip()


def resolve(
    text: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ModelSpec:
    """The model ``text`` names, with its key and URL (the options, else the environment).

    Raises InvalidOption (``model``, ``base_url``) for a malformed name, an unknown provider
    or a bad URL, and ModelNotConfigured for a missing key or SDK — before anything is
    called.
    """
    environ = os.environ if env is None else env
    name, model = parse_model(text)
    provider = PROVIDERS.get(name)
    if provider is None:
        raise InvalidOption(
            "model", f"unknown provider {name!r} in {text!r}; providers: {', '.join(PROVIDERS)}"
        )
    module = _EXTRA[provider.api]
    if importlib.util.find_spec(module) is None:
        raise ModelNotConfigured(
            f"{provider.name} models need the {module} SDK: pip install 'pagesight[{module}]'"
        )
    key = api_key or (environ.get(provider.key_env) if provider.key_env else None) or None
    base = base_url or (environ.get(provider.base_env) if provider.base_env else None) or None
    base = base or provider.default_base
    if base is not None:
        base = _checked_url(base, provider)
    # A server on this machine (OPENAI_BASE_URL pointed at llama.cpp, vLLM, a test's fake)
    # usually takes no key: asking for one would make a user invent it.
    if key is None and provider.needs_key and not _on_this_machine(base):
        raise ModelNotConfigured(
            f"{provider.name} needs an API key: set {provider.key_env} or pass --api-key"
        )
    return ModelSpec(provider=provider, model=model, base_url=base, api_key=key)


def _checked_url(url: str, provider: Provider) -> str:
    if provider.name == "ollama":
        # OLLAMA_HOST is often a bare host:port; its OpenAI-compatible API is under /v1.
        if "://" not in url:
            url = f"http://{url}"
        url = url.rstrip("/")
        url = url if url.endswith("/v1") else f"{url}/v1"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidOption(
            "base_url", f"the base URL must be an http(s) URL such as {_EXAMPLE}, not {url!r}"
        )
    return url.rstrip("/")


_EXAMPLE = "http://127.0.0.1:8000/v1"


def _on_this_machine(url: str | None) -> bool:
    host = urlsplit(url).hostname if url else None
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect(
    spec: ModelSpec,
    *,
    timeout: float = 60.0,
    retries: int = 2,
    strict: bool | None = None,
    max_tokens: int | None = None,
) -> OpenAIChat | AnthropicMessages:
    """The :class:`~pagesight.models.model.Model` for ``spec``. ``timeout``: seconds per
    call; ``retries``: how often a 429 or 5xx is tried again; ``strict``: ask for
    a reply constrained to the tools' schemas, each server in the way it enforces (default:
    every provider but OpenRouter; ``False`` asks for nothing, for a local model that answers
    worse when forced)."""
    if spec.provider.api == "anthropic":
        from pagesight.models.anthropic_messages import AnthropicMessages

        return AnthropicMessages(
            model=spec.model,
            api_key=spec.api_key,
            base_url=spec.base_url,
            timeout=timeout,
            retries=retries,
            max_tokens=max_tokens or 4096,
        )
    from pagesight.models.openai_chat import OpenAIChat

    return OpenAIChat(
        model=spec.model,
        api_key=spec.api_key,
        base_url=spec.base_url,
        timeout=timeout,
        retries=retries,
        strict=spec.provider.strict if strict is None else strict,
        constraint=spec.provider.constraint,
        max_tokens=max_tokens,
        provider=spec.provider.name,
    )


def open_model(
    text: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 60.0,
    retries: int = 2,
    strict: bool | None = None,
) -> OpenAIChat | AnthropicMessages:
    """The model ``text`` (``PROVIDER:MODEL``) names, ready to give to
    :class:`~pagesight.planners.llm.planner.ModelPlanner`: :func:`resolve`, then :func:`connect`."""
    spec = resolve(text, api_key=api_key, base_url=base_url)
    return connect(spec, timeout=timeout, retries=retries, strict=strict)
