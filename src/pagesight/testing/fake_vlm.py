"""A fake vision-language model server on 127.0.0.1, for tests and offline demos.

It speaks the OpenAI-compatible ``POST /v1/chat/completions`` (plus ``GET /v1/models``)
that :mod:`pagesight.models.vlm` asks every server through, and Ollama's own
``POST /api/chat`` (plus ``GET /api/tags``) for other clients, with each API's own error
shapes. Its caption is computed from the
image it receives (size and dominant colour), so a test can tell that the screenshot really
travelled. Every request body is kept in ``requests``.

    with FakeVlmServer(models=("qwen2.5vl:7b",)) as server:
        client = VlmClient(base_url=server.base_url, model="qwen2.5vl:7b", api="ollama")
        print(client.caption(png))

Run it on its own with ``python -m pagesight.testing.fake_vlm --port 11434``.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import io
import json
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from PIL import Image, UnidentifiedImageError

_DATA_URL = "data:image/png;base64,"


def describe(png: bytes) -> str:
    """The fake model's caption: what can be told of an image without understanding it."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    small = image.resize((32, 32))
    data = small.tobytes()
    red, green, blue = Counter(data[i : i + 3] for i in range(0, len(data), 3)).most_common(1)[0][0]
    return (
        f"A {image.width}x{image.height} screenshot, mostly #{red:02x}{green:02x}{blue:02x}. "
        "(fake vision model)"
    )


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class FakeVlmServer:
    """The server; ``base_url`` once started. A context manager that starts and stops it.

    ``models`` are the names it serves (others get a 404); ``api_key``, when set, must come
    as a bearer token (else 401); ``caption`` replaces :func:`describe`.
    """

    def __init__(
        self,
        *,
        models: Sequence[str] = ("fake-vl",),
        api_key: str | None = None,
        caption: Callable[[bytes], str] = describe,
        port: int = 0,
    ) -> None:
        self.models = tuple(models)
        self.api_key = api_key
        self.caption = caption
        self.requests: list[dict[str, Any]] = []
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake VLM server is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> FakeVlmServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-vlm",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeVlmServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass  # a test's output is no place for an access log

            def do_GET(self) -> None:
                if self.path == "/v1/models":
                    data = [{"id": m, "object": "model", "owned_by": "fake"} for m in server.models]
                    self._send(200, {"object": "list", "data": data})
                elif self.path == "/api/tags":
                    self._send(200, {"models": [{"name": m, "model": m} for m in server.models]})
                else:
                    self._send(404, {"error": f"no route {self.path}"})

            def do_POST(self) -> None:
                ollama = self.path == "/api/chat"
                if not ollama and self.path != "/v1/chat/completions":
                    self._send(404, {"error": f"no route {self.path}"})
                    return
                try:
                    self._authorise()
                    body = self._json()
                    server.requests.append({"path": self.path, "body": body})
                    model = body.get("model")
                    if model not in server.models:
                        raise _BadRequest(404, f"model '{model}' not found")
                    png = _ollama_image(body) if ollama else _openai_image(body)
                    caption = server.caption(png)
                except _BadRequest as exc:
                    self._fail(exc.status, str(exc), ollama=ollama)
                    return
                if ollama:
                    self._send(200, _ollama_reply(str(body["model"]), caption))
                else:
                    self._send(200, _openai_reply(str(body["model"]), caption))

            def _authorise(self) -> None:
                if server.api_key is None:
                    return
                if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    raise _BadRequest(401, "invalid api key")

            def _json(self) -> dict[str, Any]:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError as exc:
                    raise _BadRequest(400, f"invalid JSON: {exc}") from exc
                if not isinstance(body, dict):
                    raise _BadRequest(400, "the body must be a JSON object")
                return body

            def _fail(self, status: int, message: str, *, ollama: bool) -> None:
                if ollama:
                    self._send(status, {"error": message})
                else:
                    kind = "authentication_error" if status == 401 else "invalid_request_error"
                    self._send(status, {"error": {"message": message, "type": kind}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _decode(data: str) -> bytes:
    try:
        png = base64.b64decode(data, validate=True)
        Image.open(io.BytesIO(png)).verify()
    except (binascii.Error, UnidentifiedImageError, OSError) as exc:
        raise _BadRequest(400, f"the image is not a readable PNG: {exc}") from exc
    return png


def _openai_image(body: dict[str, Any]) -> bytes:
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if isinstance(url, str) and url.startswith(_DATA_URL):
                return _decode(url[len(_DATA_URL) :])
    raise _BadRequest(400, "no image_url part with a data:image/png;base64 URL in messages")


def _ollama_image(body: dict[str, Any]) -> bytes:
    for message in body.get("messages") or []:
        images = message.get("images") if isinstance(message, dict) else None
        if isinstance(images, list) and images and isinstance(images[0], str):
            return _decode(images[0])
    raise _BadRequest(400, "no images in messages")


def _openai_reply(model: str, caption: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": caption},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": len(caption.split())},
    }


def _ollama_reply(model: str, caption: str) -> dict[str, Any]:
    return {
        "model": model,
        "message": {"role": "assistant", "content": caption},
        "done": True,
        "done_reason": "stop",
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake vision-language model server.")
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--model", action="append", default=[], help="a model name to serve")
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args(argv)
    server = FakeVlmServer(models=args.model or ["fake-vl"], api_key=args.api_key, port=args.port)
    server.start()
    print(f"fake VLM at {server.base_url} serving {', '.join(server.models)}; Ctrl-C stops")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
