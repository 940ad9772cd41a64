"""Secrets never leave (issue 14 §2): two secrets typed by a run — the CLI in-process with a
fake OpenAI server over HTTP, and ``pagesight mcp`` as a real subprocess driven by the SDK
client — then every byte written, every request the model server received and every MCP
result searched for them in each encoding they could take. A secret scoped to the page's
origin is refused in a frame of another origin (the frame's origin counts, not the tab's) and
in a URL of another origin; a page printing a secret shows ``{{NAME}}`` in the outline; the
fields holding one are black in every screenshot saved or sent.

Pages: secret-login.html (a sign-in form at fixed places, a page that prints what was
typed, and a partner iframe whose typed text the page shows) and secret-frame.html (that
frame, served from ``other_origin``)."""

from __future__ import annotations

import asyncio
import base64
import html
import json
import logging
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult
from starlette.requests import Request

from cli_support import run_cli
from conftest import StaticServer
from mcp_support import SRC, McpClient, images, ref, text
from pagesight import Browser, InvalidOption, SecretNotAllowedHere
from pagesight.agent.registry import ToolRegistry
from pagesight.agent.secrets import Secrets, gathered, mask_exception
from pagesight.agent.session import Session
from pagesight.agent.tool import Tool
from pagesight.errors import PageCrashed
from pagesight.mcp.browsers import BrowserOptions
from pagesight.mcp.server import PagesightMCP
from pagesight.testing import FakeOpenAI, Reply
from pagesight.vision.images import decode_png

USER = "alice-S3cr3t-üser"  # shown in a text field, and printed by the page
PASS = 'p@ss "w0rd"\\ & <x>'  # a password: quotes, a backslash, markup, a space
USERNAME_BOX = (20, 60, 300, 30)  # secret-login.html's #user, CSS px (x, y, w, h)


def encodings(value: str) -> set[bytes]:
    """``value`` as it could be written anywhere: raw UTF-8, JSON (escaped or not), repr,
    URL-encoded, HTML-escaped, base64."""
    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        repr(value)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
        html.escape(value),
        html.escape(value, quote=False),
    }
    out = {form.encode() for form in forms}
    out.add(base64.b64encode(value.encode()))
    return out


SECRET_FORMS = encodings(USER) | encodings(PASS)


def leaks(data: bytes) -> list[bytes]:
    return [form for form in SECRET_FORMS if form in data]


def written(folder: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            yield path, path.read_bytes()


def blacked_out(png: bytes, box: tuple[int, int, int, int]) -> float:
    """The share of the box's pixels that are black (the PNG at device pixel ratio 1)."""
    image = decode_png(png).convert("RGB")
    x, y, w, h = box
    pixels = [
        image.getpixel((i, j)) for i in range(x + 2, x + w - 2) for j in range(y + 2, y + h - 2)
    ]
    return sum(1 for p in pixels if p == (0, 0, 0)) / len(pixels)


@pytest.fixture(scope="module")
def login_url(server: StaticServer, other_origin: StaticServer) -> str:
    return f"{server.url('secret-login.html')}?frame={other_origin.url('secret-frame.html')}"


class RecordingOpenAI(FakeOpenAI):
    """The fake OpenAI server, keeping each request's body as the bytes it received."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.raw: list[bytes] = []

    def receive(self, request: Request, raw: bytes, request_id: str) -> Any:
        self.raw.append(raw)
        return super().receive(request, raw, request_id)


def said(body: dict[str, Any]) -> str:
    """Every text the request carried (the messages' contents), joined."""
    parts: list[str] = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict))
    return "\n".join(parts)


def ref_in(body: dict[str, Any], needle: str) -> int:
    found = re.findall(rf"\[(\d+)\] {re.escape(needle)}", said(body))
    assert found, f"no {needle!r} in what the model was sent"
    return int(found[-1])


def test_a_cli_run_types_two_secrets_and_no_byte_holds_them(
    monkeypatch: pytest.MonkeyPatch,
    browser: Browser,
    server: StaticServer,
    login_url: str,
    tmp_path: Path,
) -> None:
    script = [
        lambda b: Reply.calling("input", ref=ref_in(b, 'textbox "Username"'), text="{{USER}}"),
        # Typed into the partner frame (another origin) on the same tab: refused.
        lambda b: Reply.calling("input", ref=ref_in(b, 'textbox "Partner note"'), text="{{PASS}}"),
        lambda b: Reply.calling(
            "batch",
            actions=[
                {
                    "tool": "input",
                    "arguments": {"ref": ref_in(b, 'textbox "Password"'), "text": "{{PASS}}"},
                },
                {"tool": "click", "arguments": {"ref": ref_in(b, 'button "Sign in"')}},
            ],
        ),
        Reply.calling("done", answer="signed in"),
    ]
    out = tmp_path / "run"
    with RecordingOpenAI(script, api_key="sk-secrets") as fake:
        done = run_cli(
            monkeypatch,
            "run",
            login_url,
            "--goal",
            "sign in with {{USER}} and {{PASS}}",
            "--model",
            "openai:gpt-4.1-mini",
            "--no-text-layer",
            "--confirm",  # signing in submits a password: no person to ask in a test
            "never",
            "--out",
            str(out),
            "--secret",
            f"USER@{server.origin}={USER}",
            "--secret",
            f"PASS@{server.origin}=",  # its value from the environment, out of argv
            "--cdp-url",
            browser.cdp_url,
            env={
                "OPENAI_API_KEY": "sk-secrets",
                "OPENAI_BASE_URL": fake.base_url,
                "PAGESIGHT_SECRET_PASS": PASS,
            },
        )
    assert fake.errors == []
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    assert len(fake.requests) == 4
    # The frame's field is another origin's: refused by type, and nothing reached it.
    refused = said(fake.requests[2])
    assert "secret_not_allowed_here" in refused
    assert f"may be typed only on {server.origin}" in refused
    last = said(fake.requests[3])
    assert "Note from the partner frame: (empty)" in last
    # The page printed both secrets: the model read their names.
    assert "Signed in as {{USER}} (password {{PASS}})" in last
    records = [json.loads(x) for x in (out / "run.jsonl").read_text().splitlines()]
    assert records[1]["calls"][0]["error"]["reason"] == "secret_not_allowed_here"
    # Not one byte anywhere holds a secret in any encoding.
    for number, raw in enumerate(fake.raw):
        assert leaks(raw) == [], f"model request {number + 1}"
    assert leaks(done.stdout.encode()) == []
    files = dict(written(out))
    assert {"run.jsonl", "summary.json", "report.html", "steps.txt", "final.png"} <= {
        p.name for p in files
    }
    for path, data in files.items():
        assert leaks(data) == [], path.name
    # The username field holds USER in the screenshots after it was typed: black there.
    assert blacked_out((out / "final.png").read_bytes(), USERNAME_BOX) > 0.99
    assert blacked_out((out / "step-02.png").read_bytes(), USERNAME_BOX) > 0.99
    assert blacked_out((out / "step-01.png").read_bytes(), USERNAME_BOX) < 0.5  # empty then


def test_the_mcp_server_types_two_secrets_and_no_result_holds_them(
    server: StaticServer, other_origin: StaticServer, login_url: str, tmp_path: Path
) -> None:
    output, log = tmp_path / "out", tmp_path / "server.log"
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "pagesight",
            "mcp",
            "--output-dir",
            str(output),
            "--confirm",  # signing in submits a password: no person to ask in a test
            "never",
            "--secret",
            f"USER@{server.origin}={USER}",
            "--secret",
            f"PASS@{server.origin}=",
        ],
        env={**os.environ, "PYTHONPATH": str(SRC), "PAGESIGHT_SECRET_PASS": PASS},
    )
    results = []
    with log.open("w") as errlog, McpClient(params, errlog=errlog) as client:

        def call(name: str, **arguments: Any) -> Any:
            result = client.call(name, arguments)
            results.append(result)
            return result

        page = text(call("browser_navigate", url=login_url))
        typed = call("browser_type", ref=ref(page, 'textbox "Username"'), text="{{USER}}")
        assert not typed.is_error, text(typed)
        frame = call("browser_type", ref=ref(page, 'textbox "Partner note"'), text="{{PASS}}")
        assert frame.is_error and "error (secret_not_allowed_here)" in text(frame)
        away = call(
            "browser_navigate", url=f"{other_origin.url('secret-frame.html')}?t={{{{PASS}}}}"
        )
        assert away.is_error and "error (secret_not_allowed_here)" in text(away)
        assert "the URL navigated to is on " + other_origin.origin in text(away)
        password = text(call("browser_type", ref=ref(page, 'textbox "Password"'), text="{{PASS}}"))
        # A password field's value is never shown, not even as the secret's name.
        assert 'textbox "Password": - -> "••••••••"' in password
        assert "{{PASS}}" not in password
        signed = text(call("browser_click", ref=ref(page, 'button "Sign in"')))
        # The page printed both secrets; the page after the click says their names.
        assert "Signed in as {{USER}} (password {{PASS}})" in signed
        shot = call("browser_take_screenshot", filename="signed.png")
        snapshot = text(call("browser_snapshot"))
        assert "Signed in as {{USER}}" in snapshot
        assert "Note from the partner frame: (empty)" in snapshot  # nothing reached the frame
    for number, result in enumerate(results):
        dumped = result.model_dump_json().encode()
        assert leaks(dumped) == [], f"result {number + 1}: {dumped[:300]!r}"
        for png in images(result):
            assert leaks(png) == []
    (png,) = images(shot)
    assert blacked_out(png, USERNAME_BOX) > 0.99
    assert blacked_out((output / "signed.png").read_bytes(), USERNAME_BOX) > 0.99
    for path, data in [*written(output), (log, log.read_bytes())]:
        assert leaks(data) == [], path.name


def test_secrets_scope_and_environment_are_checked_before_anything_starts() -> None:
    secrets = Secrets({"PASS@https://bank.example,http://127.0.0.1:*": "pw", "TOKEN": "tk"})
    assert secrets.names == ("PASS", "TOKEN")
    assert secrets.scope("PASS") == ("https://bank.example", "http://127.0.0.1:*")
    assert secrets.scope("TOKEN") is None
    assert secrets.fill_for("{{PASS}}", at="http://127.0.0.1:8000/login") == "pw"
    assert secrets.fill_for("{{TOKEN}}", at=None) == "tk"  # unscoped: anywhere
    with pytest.raises(SecretNotAllowedHere) as refused:
        secrets.fill_for({"text": "{{PASS}}"}, at="https://evil.example/x", where="the field")
    assert (refused.value.name, refused.value.origin) == ("PASS", "https://evil.example")
    assert "pw" not in str(refused.value)
    with pytest.raises(SecretNotAllowedHere):  # a key to whatever has focus: no origin
        secrets.fill_for("{{PASS}}", at=None)
    with pytest.raises(InvalidOption, match="the secret PASS's scope") as bad:
        Secrets({"PASS@bank.example/login": "pw"})
    assert bad.value.option == "secrets"
    environ = {"PAGESIGHT_SECRET_PIN": "1234", "PAGESIGHT_SECRET_PASS": "from-env", "HOME": "/"}
    assert gathered([("PASS@https://bank.example", "")], environ) == {
        "PASS@https://bank.example": "from-env",
        "PIN": "1234",
    }
    with pytest.raises(InvalidOption, match="PAGESIGHT_SECRET_KEY, which is not set"):
        gathered([("KEY", "")], environ)


def test_an_elements_frame_url_is_its_own_frames(
    browser: Browser, server: StaticServer, other_origin: StaticServer, login_url: str
) -> None:
    page = browser.open(login_url)
    try:
        outline = page.observe().text()
        assert page.frame_url(ref(outline, 'textbox "Username"')) == login_url
        note = page.frame_url(ref(outline, 'textbox "Partner note"'))
        assert note == other_origin.url("secret-frame.html")
    finally:
        page.close()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (
            ("run", "http://x", "--steps", "x.steps", "--secret", "A@bad/x=zzzz-val"),
            "--secret: the secret A's scope: allowed_origins: 'bad/x' is not an origin",
        ),
        (("mcp", "--secret", "A@bad/x=zzzz-val"), "--secret: the secret A's scope"),
        (("mcp", "--secret", "A="), "--secret: A= takes its value from the environment variable"),
    ],
)
def test_a_bad_secret_option_is_one_line_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...], said: str
) -> None:
    monkeypatch.delenv("PAGESIGHT_SECRET_A", raising=False)
    done = run_cli(monkeypatch, *argv)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.startswith(f"pagesight: {said}") and done.stderr.count("\n") == 1
    assert "zzzz-val" not in done.stderr


@pytest.mark.parametrize("command", ["run", "mcp"])
@pytest.mark.parametrize("given", ["=zzzz-val", "@https://bank.example=zzzz-val", "zzzz-val"])
def test_a_secret_option_without_a_name_is_refused_as_the_option_and_never_echoed(
    monkeypatch: pytest.MonkeyPatch, command: str, given: str
) -> None:
    argv = ("run", "http://x", "--steps", "x.steps") if command == "run" else ("mcp",)
    done = run_cli(monkeypatch, *argv, "--secret", given)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.startswith(
        "pagesight: argument --secret: expected NAME=VALUE (what was given is not shown)"
    )
    assert "zzzz-val" not in done.stderr


async def leaky_hover(session: Session, *, ref: int) -> str:
    """Hover, with a bug whose message quotes a secret.

    Args:
        ref: The element's id.
    """
    raise KeyError(f"a bug near {PASS}")


def test_an_mcp_bug_quoting_a_secret_reaches_neither_the_client_nor_the_log(
    tmp_path: Path, browser: Browser, caplog: pytest.LogCaptureFixture
) -> None:
    leaky = Tool.from_function(leaky_hover, name="hover")
    registry = ToolRegistry([*(t for t in ToolRegistry.discover() if t.name != "hover"), leaky])
    options = BrowserOptions(
        output_dir=tmp_path, cdp_url=browser.cdp_url, secrets=Secrets({"PASS": PASS})
    )
    mcp = PagesightMCP(options, registry=registry)

    async def call() -> CallToolResult:
        try:
            return await mcp.call_tool("browser_hover", {"ref": 1})
        finally:
            await mcp.holders.close()

    with caplog.at_level(logging.ERROR, logger="pagesight.mcp"):
        failed = asyncio.run(call())
    assert failed.is_error
    assert "error (internal_error): KeyError: 'a bug near {{PASS}}'" in text(failed)
    assert "{{PASS}}" in caplog.text  # the traceback was logged, with the secret's name
    assert leaks(caplog.text.encode()) == []
    assert leaks(failed.model_dump_json().encode()) == []


def test_a_prompt_gets_a_scoped_secret_only_where_every_frame_may_have_it(
    browser: Browser, server: StaticServer, other_origin: StaticServer
) -> None:
    # handle_dialog is checked against the tab's URL when called, but the dialog comes
    # later, from whichever frame asks: here a frame of another origin, which must not get
    # the password; the same page alone does.
    inner = other_origin.url("secret-prompt.html") + "?inner=1"
    framed = server.url("secret-prompt.html") + "?frame=" + quote(inner, safe="")
    secrets = Secrets({f"PASS@{server.origin}": PASS})
    for url, asker, answer in (
        (framed, "Ask from the frame", None),
        (server.url("secret-prompt.html"), "Ask", PASS),
    ):
        page = browser.open(url)
        try:
            session = Session(
                browser=browser._browser,
                page=page._page,
                registry=ToolRegistry.discover(),
                secrets=secrets,
            )
            run = browser._loop.run
            tell = {"accept": True, "prompt_text": "{{PASS}}"}
            told = run(session.registry.call("handle_dialog", tell, session))
            assert told.error is None, told.text
            button = {"ref": ref(page.observe().text(), f'button "{asker}"')}
            clicked = run(session.registry.call("click", button, session))
            assert clicked.value["dialogs"] == [
                {"type": "prompt", "message": "Your password?", "accepted": answer is not None}
            ]
            asked = page.playwright.frames[-1]  # the frame's own page, or the tab's
            assert asked.evaluate("window.answer") == answer
        finally:
            page.close()


def test_a_secret_shown_in_capitals_is_masked_too() -> None:
    # A heading styled text-transform: uppercase is read in capitals off the screen (OCR, a
    # vision page) and by innerText; a page may upper-case it itself.
    secrets = Secrets({"USER": USER, "PASS": PASS})
    shown = f"Welcome, {USER.upper()}! Password {PASS.upper()}; {json.dumps(PASS.upper())}"
    assert secrets.mask(shown) == 'Welcome, {{USER}}! Password {{PASS}}; "{{PASS}}"'
    assert secrets.shown_in(f"signed in as {USER.upper()}")


def test_a_secret_cut_short_by_a_length_cap_keeps_no_first_letters() -> None:
    # The walker caps names and values ("…" at the cut): a cut inside a secret leaves its
    # first letters, masked as the whole is.
    secrets = Secrets({"USER": USER})
    assert secrets.mask(f"Notes: hello {USER[:9]}\u2026") == "Notes: hello {{USER}}\u2026"
    assert secrets.mask(f"hello {USER[:9]}") == f"hello {USER[:9]}"  # not cut: other text


def test_a_secret_quoted_by_repr_or_json_is_masked() -> None:
    # An error saying {text!r} doubles PASS's backslash; JSON escapes its quotes as well.
    secrets = Secrets({"PASS": PASS})
    assert secrets.mask(f"no option {PASS!r}") == "no option '{{PASS}}'"
    assert secrets.mask(json.dumps({"text": PASS})) == '{"text": "{{PASS}}"}'


def test_a_secret_in_a_path_an_os_error_names_is_masked_where_errors_are(
    tmp_path: Path,
) -> None:
    # An OSError keeps the path apart from its args, yet its one-line message quotes it:
    # a secret used in a file name must not survive there, nor in an error raised from it.
    secrets = Secrets({"KEY": "tok-5521-SECRET"})
    try:
        try:
            (tmp_path / "key-tok-5521-SECRET.txt").rename(tmp_path / "TOK-5521-secret.bak")
        except OSError as exc:
            raise RuntimeError("could not keep the key") from exc
    except RuntimeError as exc:
        mask_exception(exc, secrets)
        raised = exc
    cause = raised.__cause__
    assert isinstance(cause, FileNotFoundError)
    assert str(cause) == (
        f"[Errno 2] No such file or directory: '{tmp_path}/key-{{{{KEY}}}}.txt' -> "
        f"'{tmp_path}/{{{{KEY}}}}.bak'"
    )
    assert "5521" not in f"{cause.filename} {cause.filename2}"
    advised = PageCrashed("the tab closed", advice="open tok-5521-SECRET again")
    mask_exception(advised, secrets)
    assert advised.advice == "open {{KEY}} again"  # kept beside the message, read off too
    assert advised.what == "the tab closed"
