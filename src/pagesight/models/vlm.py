"""A caption of a screenshot from a vision-language model (e.g. qwen2.5-vl), through the
model providers of :mod:`pagesight.models` (the official ``openai`` SDK).

Every server is asked through the OpenAI-compatible ``POST {base}/v1/chat/completions``
(vLLM, llama.cpp's server, LM Studio, hosted services, and Ollama, whose ``/v1`` speaks it
too), the screenshot as an ``image_url`` data URL. ``api="ollama"`` only says that no key is
needed. A 429 or 5xx is retried as for any model (Retry-After honoured, at most 30 s).

Every failure becomes one :class:`~pagesight.errors.VisionModelError` whose message is one
line saying what happened and what to check. The client is blocking (each caption runs the
async provider to completion); from async code run it in a thread (``asyncio.to_thread``),
as the vision fallback does.
"""

from __future__ import annotations

import asyncio
from typing import Literal, get_args
from urllib.parse import urlsplit

from pagesight.errors import InvalidOption, ModelError, VisionModelError
from pagesight.messages import Message
from pagesight.models.openai_chat import OpenAIChat

Api = Literal["openai", "ollama"]

DEFAULT_PROMPT = (
    "Describe this screenshot of a web page or app for someone who cannot see it: what it is, "
    "its main regions, and the controls a user could act on, with their visible labels. "
    "Be brief."
)
MAX_TOKENS = 400


class VlmClient:
    """A :class:`~pagesight.vision.screen.Captioner`: a vision-language model at ``base_url``.

    ``base_url`` is the server's root (``http://127.0.0.1:11434``); a root ending in ``/v1``
    works too. ``api_key`` is sent as a bearer token when given. ``retries``: how often a
    429 or 5xx is tried again.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api: Api = "openai",
        api_key: str | None = None,
        timeout: float = 60.0,
        prompt: str = DEFAULT_PROMPT,
        retries: int = 2,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise InvalidOption(
                "base_url",
                f"base_url must be an http(s) URL such as http://127.0.0.1:11434, not {base_url!r}",
            )
        if api not in get_args(Api):
            raise InvalidOption("api", f"api must be 'openai' or 'ollama', not {api!r}")
        if not model:
            raise InvalidOption("model", "model must name the model to ask, e.g. 'qwen2.5vl:7b'")
        if timeout <= 0:
            raise InvalidOption("timeout", f"timeout must be positive, not {timeout!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api: Api = api
        self.api_key = api_key
        self.timeout = timeout
        self.prompt = prompt
        self._model = OpenAIChat(
            model=model,
            api_key=api_key,
            base_url=self.root,
            timeout=timeout,
            retries=retries,
            max_tokens=MAX_TOKENS,
            temperature=0,
            provider=api,
        )

    @property
    def root(self) -> str:
        """The base URL of the OpenAI-compatible API (``…/v1``)."""
        return self.base_url if self.base_url.endswith("/v1") else f"{self.base_url}/v1"

    @property
    def endpoint(self) -> str:
        return f"{self.root}/chat/completions"

    def caption(self, png: bytes, *, prompt: str | None = None) -> str:
        """The model's description of the screenshot (PNG bytes)."""
        message = Message(role="user", content=prompt or self.prompt, images=(png,))
        try:
            reply = asyncio.run(self._model.complete([message], ()))
        except ModelError as exc:
            raise VisionModelError(str(exc), status=exc.status) from exc
        if not reply.text:
            raise VisionModelError(f"{self.endpoint} answered without a caption")
        return reply.text.strip()
