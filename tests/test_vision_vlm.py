"""The vision-language model client against the fake VLM server, a real HTTP server on
127.0.0.1 speaking the OpenAI-compatible and Ollama APIs, and against endpoints that fail."""

from __future__ import annotations

import base64
import io
import json
import socket
import urllib.request
from collections.abc import Iterator

import pytest
from PIL import Image

from conftest import StaticServer
from pagesight import Browser, InvalidOption
from pagesight.models import VlmClient
from pagesight.testing.fake_vlm import FakeVlmServer
from pagesight.vision import VisionModelError
from vision_support import open_canvas

MODEL = "qwen2.5vl:7b"


@pytest.fixture(scope="module")
def screenshot(browser: Browser, server: StaticServer) -> Iterator[bytes]:
    page = open_canvas(browser, server)
    yield page.playwright.screenshot()
    page.close()


@pytest.fixture
def fake() -> Iterator[FakeVlmServer]:
    with FakeVlmServer(models=(MODEL,)) as srv:
        yield srv


def _size(png: bytes) -> tuple[int, int]:
    width, height = Image.open(io.BytesIO(png)).size
    return (width, height)


def test_openai_compatible_caption(fake: FakeVlmServer, screenshot: bytes) -> None:
    client = VlmClient(base_url=fake.base_url, model=MODEL)
    caption = client.caption(screenshot)
    width, height = _size(screenshot)
    # The fake describes the image it decoded: the screenshot arrived whole. The canvas app's
    # page is mostly white.
    assert caption.startswith(f"A {width}x{height} screenshot, mostly #ffffff")
    (request,) = fake.requests
    assert request["path"] == "/v1/chat/completions"
    body = request["body"]
    assert body["model"] == MODEL
    text, image = body["messages"][0]["content"]
    assert text["type"] == "text" and "screenshot" in text["text"]
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == screenshot


def test_openai_base_url_may_end_in_v1(fake: FakeVlmServer, screenshot: bytes) -> None:
    client = VlmClient(base_url=f"{fake.base_url}/v1/", model=MODEL, prompt="What is this?")
    assert client.endpoint == f"{fake.base_url}/v1/chat/completions"
    assert "screenshot" in client.caption(screenshot)
    assert fake.requests[0]["body"]["messages"][0]["content"][0]["text"] == "What is this?"


def test_ollama_caption(fake: FakeVlmServer, screenshot: bytes) -> None:
    """Ollama is asked through its OpenAI-compatible /v1, with no key."""
    client = VlmClient(base_url=fake.base_url, model=MODEL, api="ollama")
    caption = client.caption(screenshot, prompt="Describe.")
    assert caption.startswith("A ") and "(fake vision model)" in caption
    (request,) = fake.requests
    assert request["path"] == "/v1/chat/completions"
    (message,) = request["body"]["messages"]
    text, image = message["content"]
    assert text == {"type": "text", "text": "Describe."}
    url = image["image_url"]["url"]
    assert base64.b64decode(url.removeprefix("data:image/png;base64,")) == screenshot
    assert request["body"]["max_tokens"] == 400 and request["body"]["temperature"] == 0


def test_the_fake_lists_its_models(fake: FakeVlmServer) -> None:
    with urllib.request.urlopen(f"{fake.base_url}/v1/models", timeout=5) as reply:
        assert [m["id"] for m in json.load(reply)["data"]] == [MODEL]
    with urllib.request.urlopen(f"{fake.base_url}/api/tags", timeout=5) as reply:
        assert [m["name"] for m in json.load(reply)["models"]] == [MODEL]


@pytest.mark.parametrize("api", ["openai", "ollama"])
def test_an_unknown_model_is_named(fake: FakeVlmServer, screenshot: bytes, api: str) -> None:
    client = VlmClient(base_url=fake.base_url, model="llava:missing", api=api)  # type: ignore[arg-type]
    with pytest.raises(VisionModelError) as caught:
        client.caption(screenshot)
    message = str(caught.value)
    assert caught.value.status == 404
    assert "HTTP 404: model 'llava:missing' not found" in message
    assert "check the model name 'llava:missing'" in message
    assert len(fake.requests) == 1  # a 404 is not retried
    assert "\n" not in message


def test_an_api_key_is_sent_and_checked(screenshot: bytes) -> None:
    with FakeVlmServer(models=(MODEL,), api_key="sk-test") as srv:
        with pytest.raises(
            VisionModelError, match=r"HTTP 401: invalid api key\); check the API key"
        ):
            VlmClient(base_url=srv.base_url, model=MODEL).caption(screenshot)
        client = VlmClient(base_url=srv.base_url, model=MODEL, api_key="sk-test")
        assert "screenshot" in client.caption(screenshot)


def test_a_server_that_is_not_running(screenshot: bytes, closed_port: int) -> None:
    client = VlmClient(base_url=f"http://127.0.0.1:{closed_port}", model=MODEL, retries=0)
    with pytest.raises(VisionModelError, match=r"no model server answers at .*http://127\.0\.0\.1"):
        client.caption(screenshot)


def test_a_server_that_never_answers(screenshot: bytes) -> None:
    with socket.socket() as sock:  # accepts connections (the backlog) but never replies
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        port = sock.getsockname()[1]
        client = VlmClient(base_url=f"http://127.0.0.1:{port}", model=MODEL, timeout=0.5)
        with pytest.raises(VisionModelError, match=r"did not answer within 0\.5 s"):
            client.caption(screenshot)


def test_a_server_of_another_kind(server: StaticServer, screenshot: bytes) -> None:
    """A plain web server: POST is not implemented (a 5xx, tried again), and its error
    page is HTML."""
    client = VlmClient(base_url=server.origin, model=MODEL, api="ollama", retries=0)
    with pytest.raises(VisionModelError) as caught:
        client.caption(screenshot)
    assert caught.value.status == 501
    message = str(caught.value)
    assert message.startswith(f"ollama model {MODEL!r} at {server.origin}/v1 failed (HTTP 501")
    assert "\n" not in message


def test_bad_configuration_is_refused() -> None:
    with pytest.raises(InvalidOption, match="base_url"):
        VlmClient(base_url="127.0.0.1:11434", model=MODEL)
    with pytest.raises(InvalidOption, match="api must be"):
        VlmClient(base_url="http://127.0.0.1:1", model=MODEL, api="gemini")  # type: ignore[arg-type]
    with pytest.raises(InvalidOption, match="model"):
        VlmClient(base_url="http://127.0.0.1:1", model="")
    with pytest.raises(InvalidOption, match="timeout"):
        VlmClient(base_url="http://127.0.0.1:1", model=MODEL, timeout=0)
