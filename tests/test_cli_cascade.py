"""``pagesight run URL --goal … --model …`` as the whole cascade, through the real CLI (in a
subprocess where whether a browser starts is the point; else in-process, attached to the
session browser): a read-only goal the page's text answers is answered with no browser
started; one the text does not answer goes on to the browser, whose summary counts both
layers' tokens; a goal that changes something, or ``--no-text-layer``, goes to the browser
at once; and ``--model decisions:…`` runs the decisions planner (Orbit CRM saved, read back
from SQLite; a refused key is exit 1, a missing one exit 2 before a browser starts).

Whether a browser started is seen, not guessed: the CLI runs under an audit hook that logs
every process Python starts (Playwright's driver, which launches Chromium, is one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli_support import Done, run_cli
from conftest import StaticServer
from model_support import cost, latest_page, model_tokens, texts
from pagesight import Browser
from pagesight.demo import OrbitApp
from pagesight.testing import FakeAnthropic, FakeOpenAI, Reply
from pagesight.testing.decisions import FakeDecisionsServer, estimate
from pagesight.testing.decisions_demo import ORBIT_GOAL, orbit_script

SRC = Path(__file__).resolve().parents[1] / "src"
MODEL = "openai:gpt-4.1-mini"
US_DELIVERY = "How long does standard delivery to the United States take?"

# The CLI as `python -m pagesight` runs it, with a hook logging each process started.
PROBED = """
import runpy, sys
log = open(sys.argv.pop(1), "a", encoding="utf-8")
def hook(event, args):
    if event == "subprocess.Popen":
        log.write(" ".join(map(str, args[1])) + "\\n")
    elif event in ("os.posix_spawn", "os.exec", "os.fork"):
        log.write(f"{event} {args[0]}\\n")
    log.flush()
sys.addaudithook(hook)
runpy.run_module("pagesight", run_name="__main__", alter_sys=True)
"""

_KEYS = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "PERPLEXITY_API_KEY",
    "PERPLEXITY_BASE_URL",
)


def _cli(
    tmp_path: Path, *args: str, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``pagesight run ARGS`` in a subprocess; what it printed, and the processes it started."""
    log = tmp_path / "processes.log"
    log.write_text("", encoding="utf-8")
    environ = {k: v for k, v in os.environ.items() if k not in _KEYS}
    done = subprocess.run(
        [sys.executable, "-c", PROBED, str(log), "run", *args],
        check=False,
        capture_output=True,
        text=True,
        env={**environ, "PYTHONPATH": str(SRC), **env},
        timeout=180,
    )
    return done, log.read_text(encoding="utf-8").splitlines()


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, browser: Browser) -> Callable[..., Done]:
    """``cli(*ARGS, env=)``: ``pagesight run ARGS --cdp-url <session browser>`` in-process,
    for the runs whose browser is a given (no probe needed): their output, records and exit
    code are what is tested, and a Chromium start each is saved."""

    def run(*args: str, env: dict[str, str]) -> Done:
        return run_cli(monkeypatch, "run", *args, "--cdp-url", browser.cdp_url, env=env)

    return run


def _browsers(started: list[str]) -> list[str]:
    """The command lines of Chromium and of Playwright's driver among those started (the
    SDK starts ``uname -p`` to name the platform it runs on)."""
    return [p for p in started if "chrom" in p.lower() or "playwright" in p.lower()]


def _tools(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offered (chat completions or Anthropic's messages)."""
    return [t["function"]["name"] if "function" in t else t["name"] for t in body.get("tools", [])]


def _reader(needle: str, answer: str) -> Any:
    """A capable model, scripted: to the text layer it says the text answers (with
    ``answer``) only when ``needle`` is in the text it was sent; in the browser it says done
    with ``answer`` once ``needle`` is on the page it sees."""

    def reply(body: dict[str, Any]) -> Reply:
        if _tools(body) == ["answer_from_text"]:
            found = needle in "\n".join(texts(body["messages"]))
            return Reply.calling(
                "answer_from_text", answered=found, answer=answer if found else None
            )
        if needle in latest_page(body):
            return Reply.calling("done", answer=answer)
        return Reply.calling("scroll", direction="down")

    return reply


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("fake_server", "model", "key"),
    [(FakeOpenAI, MODEL, "OPENAI"), (FakeAnthropic, "anthropic:claude-haiku-4-5", "ANTHROPIC")],
)
def test_a_goal_the_pages_text_answers_starts_no_browser(
    server: StaticServer,
    tmp_path: Path,
    fake_server: type[FakeOpenAI | FakeAnthropic],
    model: str,
    key: str,
) -> None:
    out = tmp_path / "run"
    reader = _reader("within 30 days of delivery", "30 days from delivery")
    with fake_server([reader] * 3, api_key="sk-text") as fake:
        done, started = _cli(
            tmp_path,
            server.url("text-refund-policy.html"),
            "--goal",
            "What is the refund window?",
            "--model",
            model,
            "--out",
            str(out),
            env={f"{key}_API_KEY": "sk-text", f"{key}_BASE_URL": fake.base_url},
        )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    # No Chromium, no Playwright driver (the probe sees them when they start: the test below).
    assert _browsers(started) == []
    lines = done.stdout.splitlines()
    assert "done: the page's text answers the goal" in lines
    assert "answer: 30 days from delivery" in lines
    (request,) = fake.requests  # one call: the text layer's
    assert _tools(request) == ["answer_from_text"]
    (usage,) = fake.usages
    assert fake.cached == [(0, 0)]  # one call, too short to cache
    assert f"model {usage[0]} in / {usage[1]} out, ${cost(fake, model):.4f}" in done.stdout
    assert lines[-3].startswith("1 round, ") and lines[-3].endswith("layer text")
    summary = _summary(out)
    assert (summary["layer"], summary["layers_tried"]) == ("text", ["text"])
    assert summary["answer"] == "30 days from delivery"
    assert summary["model_tokens"] == model_tokens(fake)
    assert not (out / "final.png").exists()  # no screenshot: there was no page


def test_a_goal_the_text_cannot_answer_goes_on_to_the_browser_counting_both(
    server: StaticServer, tmp_path: Path
) -> None:
    # The delivery times are rendered by the page's script: its HTML holds only "Loading…".
    out = tmp_path / "run"
    reader = _reader("7 working days", "7 working days")
    with FakeOpenAI([reader] * 4, api_key="sk-both") as fake:
        done, started = _cli(
            tmp_path,
            server.url("cascade-delivery-app.html"),
            "--goal",
            US_DELIVERY,
            "--model",
            MODEL,
            "--out",
            str(out),
            env={"OPENAI_API_KEY": "sk-both", "OPENAI_BASE_URL": fake.base_url},
        )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    assert any("--remote-debugging-port" in p for p in _browsers(started))  # Chromium, now
    lines = done.stdout.splitlines()
    assert (
        "text layer: the model said the page's text does not answer the goal; opening the browser"
        in lines
    )
    assert "answer: 7 working days" in lines
    text_request, browser_request = fake.requests
    assert _tools(text_request) == ["answer_from_text"]
    assert "Loading delivery times" in "\n".join(texts(text_request["messages"]))
    assert "act" in _tools(browser_request) and "answer_from_text" not in _tools(browser_request)
    summary = _summary(out)
    assert (summary["layer"], summary["layers_tried"]) == ("dom", ["text", "dom"])
    assert len(fake.usages) == 2  # the text layer's call and the browser's, both counted
    assert summary["model_tokens"] == model_tokens(fake)
    assert summary["cost"] == pytest.approx(cost(fake, MODEL))
    assert "layer text → dom" in done.stdout


@pytest.mark.parametrize(
    ("goal", "options"),
    [
        ("Request a refund for my last order, then tell me the refund window", ()),
        ("What is the refund window?", ("--no-text-layer",)),
    ],
)
def test_a_goal_that_changes_something_or_no_text_layer_goes_to_the_browser_first(
    cli: Callable[..., Done],
    server: StaticServer,
    tmp_path: Path,
    goal: str,
    options: tuple[str, ...],
) -> None:
    out = tmp_path / "run"
    reader = _reader("within 30 days of delivery", "30 days from delivery")
    with FakeOpenAI([reader] * 3) as fake:
        done = cli(
            server.url("text-refund-policy.html"),
            "--goal",
            goal,
            "--model",
            MODEL,
            "--out",
            str(out),
            *options,
            env={"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": fake.base_url},
        )
    assert done.returncode == 0, done.stdout + done.stderr
    (first,) = fake.requests  # the browser planner's, with the registry's tools
    assert "act" in _tools(first) and "answer_from_text" not in _tools(first)
    assert "text layer" not in done.stdout
    summary = _summary(out)
    assert (summary["layer"], summary["layers_tried"]) == ("dom", ["dom"])
    assert summary["model_tokens"] == model_tokens(fake)


def test_the_decisions_planner_runs_the_orbit_task_from_the_cli(
    cli: Callable[..., Done], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with OrbitApp.start() as app, FakeDecisionsServer(orbit_script(), api_key="pplx-cli") as fake:
        done = cli(
            app.url,
            "--goal",
            ORBIT_GOAL,
            "--model",
            "decisions:pplx-decider-v1.1-27b",
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
            env={"PERPLEXITY_API_KEY": "pplx-cli"},
        )
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
        sent = list(fake.requests)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    assert {r.body["model"] for r in sent} == {"pplx-decider-v1.1-27b"}
    summary = _summary(out)
    assert summary["reached"] is True and summary["layers_tried"] == ["dom"]
    tokens = sum(estimate(r) for r in sent)
    assert summary["model_tokens"] == {
        "input": tokens,
        "cached_input": 0,
        "cache_write": 0,
        "output": 0,
    }
    assert f"model {tokens} in / 0 out, " in done.stdout
    records = [json.loads(x) for x in (out / "run.jsonl").read_text().splitlines()]
    assert records[0]["decision"]["raw"]["request_id"] == sent[0].id
    alice = sent[0].badge("Alice Chen", "link")
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Candidates" in report and f"[{alice}] 0.90" in report


def test_a_key_the_decisions_api_refuses_is_exit_1_and_one_line(
    cli: Callable[..., Done], server: StaticServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with FakeDecisionsServer(orbit_script(), api_key="pplx-right") as fake:
        done = cli(
            server.url("text-refund-policy.html"),
            "--goal",
            "What is the refund window?",
            "--model",
            "decisions:pplx-decider-v1.1-27b",
            "--api-key",
            "pplx-wrong",
            "--out",
            str(out),
            env={"PERPLEXITY_BASE_URL": fake.base_url},
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("pagesight: the Decisions API refused the request (HTTP 401")
    assert "check PERPLEXITY_API_KEY" in done.stderr
    assert "pplx-wrong" not in done.stdout + done.stderr
    assert " times" not in done.stderr  # refused once, not retried
    assert not (out / "summary.json").exists()


def test_a_missing_decisions_key_is_one_line_before_a_browser_starts(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done, started = _cli(
        tmp_path,
        "http://127.0.0.1:9/",
        "--goal",
        ORBIT_GOAL,
        "--model",
        "decisions:pplx-decider-v1.1-27b",
        "--out",
        str(out),
        env={},
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "pagesight: --api-key: the decisions planner needs an API key: set PERPLEXITY_API_KEY "
        "or pass --api-key\n"
    )
    assert _browsers(started) == []
    assert not out.exists()
