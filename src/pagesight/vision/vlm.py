"""A caption of a screenshot from a vision-language model (e.g. qwen2.5-vl), over HTTP.

Two APIs, chosen by ``api``:

* ``"openai"``: an OpenAI-compatible ``POST {base}/v1/chat/completions`` (vLLM, llama.cpp's
  server, LM Studio, Ollama's compatibility layer, hosted services) with the screenshot as an
  ``image_url`` data URL;
* ``"ollama"``: Ollama's own ``POST {base}/api/chat`` with the screenshot in ``images``.

Every failure becomes one :class:`~pagesight.errors.VisionModelError` whose message is
one line saying what happened and what to check. The client is blocking (the standard
library's ``urllib``); from async code run it in a thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import base64
import http.client
import json
import urllib.error
import urllib.request
from typing import Any, Literal, Protocol, get_args
from urllib.parse import urlsplit

from pagesight.errors import InvalidOption, VisionModelError

Api = Literal["openai", "ollama"]

DEFAULT_PROMPT = (
    "Describe this screenshot of a web page or app for someone who cannot see it: what it is, "
    "its main regions, and the controls a user could act on, with their visible labels. "
    "Be brief."
)
MAX_TOKENS = 400
_MESSAGE_CHARS = 200  # of a server's error text quoted in our message


class Captioner(Protocol):
    """Describes a screenshot in words."""

    def caption(self, png: bytes) -> str: ...


class VlmClient:
    """:class:`Captioner` backed by a vision-language model at ``base_url``.

    ``base_url`` is the server's root (``http://127.0.0.1:11434``); for ``api="openai"`` a
    root ending in ``/v1`` works too. ``api_key`` is sent as a bearer token when given.
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

    @property
    def endpoint(self) -> str:
        if self.api == "ollama":
            return f"{self.base_url}/api/chat"
        root = self.base_url if self.base_url.endswith("/v1") else f"{self.base_url}/v1"
        return f"{root}/chat/completions"

    def caption(self, png: bytes, *, prompt: str | None = None) -> str:
        """The model's description of the screenshot (PNG bytes)."""
        image = base64.b64encode(png).decode("ascii")
        text = prompt or self.prompt
        reply = self._post(self._body(text, image))
        return self._content(reply).strip()

    def _body(self, prompt: str, image: str) -> dict[str, Any]:
        if self.api == "ollama":
            return {
                "model": self.model,
                "messages": [{"role": "user", "content": prompt, "images": [image]}],
                "stream": False,
                "options": {"temperature": 0, "num_predict": MAX_TOKENS},
            }
        return {
            "model": self.model,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": prompt},
                        {
                            "type": "image_url",
                            "image_url": {"url": f"data:image/png;base64,{image}"},
                        },
                    ],
                }
            ],
            "temperature": 0,
            "max_tokens": MAX_TOKENS,
        }

    def _post(self, body: dict[str, Any]) -> Any:
        url = self.endpoint
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            url, data=json.dumps(body).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise self._timed_out() from exc
            raise VisionModelError(
                f"no vision model answers at {self.base_url} ({_one_line(exc.reason)}); "
                "start the model server or fix base_url"
            ) from exc
        except TimeoutError as exc:  # the reply started but stalled
            raise self._timed_out() from exc
        except (http.client.HTTPException, OSError) as exc:  # dropped mid-reply
            raise VisionModelError(
                f"the connection to {self.base_url} broke "
                f"({_one_line(exc) or type(exc).__name__}); is the model server crashing?"
            ) from exc
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise VisionModelError(
                f"{url} answered with something other than JSON ({_one_line(raw[:80])}); "
                f"is it a{'n Ollama' if self.api == 'ollama' else 'n OpenAI-compatible'} server?"
            ) from exc

    def _timed_out(self) -> VisionModelError:
        return VisionModelError(
            f"the vision model at {self.base_url} did not answer within {self.timeout:g} s; "
            "raise timeout or use a smaller model"
        )

    def _http_error(self, exc: urllib.error.HTTPError) -> VisionModelError:
        status = exc.code
        detail = _error_text(exc.read())
        said = f"HTTP {status}: {detail}" if detail else f"HTTP {status}"
        if status in (401, 403):
            hint = "check api_key"
        elif status == 404:
            hint = f"check the model name {self.model!r} and api={self.api!r}"
        elif status == 400:
            hint = "does this model accept images?"
        else:
            hint = "the server failed; see its log"
        return VisionModelError(
            f"{self.endpoint} refused the caption ({said}); {hint}", status=status
        )

    def _content(self, reply: Any) -> str:
        try:
            if self.api == "ollama":
                content = reply["message"]["content"]
            else:
                content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            where = "message.content" if self.api == "ollama" else "choices[0].message.content"
            raise VisionModelError(
                f"{self.endpoint} answered without {where} ({_one_line(json.dumps(reply)[:80])})"
            ) from exc
        if isinstance(content, list):  # some OpenAI-compatible servers answer in parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if not isinstance(content, str):
            raise VisionModelError(f"{self.endpoint} answered with a non-text caption")
        return content


def _error_text(raw: bytes) -> str:
    """The message of an error body: OpenAI's {"error": {"message"}}, Ollama's {"error"}."""
    try:
        body = json.loads(raw)
    except ValueError:
        return _one_line(raw)
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return _one_line(error if isinstance(error, str) else raw)


def _one_line(value: object) -> str:
    text = value.decode(errors="replace") if isinstance(value, bytes) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"
