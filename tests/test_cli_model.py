"""``pagesight run URL --goal TEXT --model PROVIDER:MODEL``: the demo task through the CLI
against the fake OpenAI server (in-process, on the session browser; tokens and cost in
summary.json), a key the server refuses (exit 1, one line), and a model that cannot be
called from this machine — no key, no SDK, an unknown provider — refused with one line,
exit 2, before a browser starts."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_support import Done, run_cli
from model_support import GOAL, SAVED, capable, cost, model_tokens
from pagesight import Browser
from pagesight.cli import main
from pagesight.demo import OrbitApp
from pagesight.testing import Failure, FakeOpenAI


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, browser: Browser) -> Callable[..., Done]:
    """``cli(*ARGS, env=)``: ``pagesight run ARGS --cdp-url <session browser>`` in-process,
    no model key from this shell (``env`` the only ones). What is tested is the command's
    output and exit code, not its process: test_cli_run.py and test_cli_cascade.py run it
    as a real subprocess, launching its own Chromium."""

    def run(*args: str, env: dict[str, str]) -> Done:
        return run_cli(monkeypatch, "run", *args, "--cdp-url", browser.cdp_url, env=env)

    return run


def test_a_goal_run_through_the_cli_saves_the_task_and_sums_usage(
    cli: Callable[..., Done], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with OrbitApp.start() as app, FakeOpenAI([capable] * 4, api_key="sk-cli") as fake:
        done = cli(
            app.url,
            "--goal",
            GOAL,
            "--model",
            "openai:gpt-4.1-mini",
            "--out",
            str(out),
            env={"OPENAI_API_KEY": "sk-cli", "OPENAI_BASE_URL": fake.base_url},
        )
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    assert rows == SAVED
    lines = done.stdout.splitlines()
    assert "done: the planner said the goal is reached" in lines
    assert "answer: Alice Chen is a Senior Software Engineer in New York" in lines
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    tokens = model_tokens(fake)
    assert len(fake.usages) == 3
    assert summary["model_tokens"] == tokens
    assert summary["cost"] == pytest.approx(cost(fake, "openai:gpt-4.1-mini"))
    # The rounds after the first read the prompt's unchanged start from the cache.
    assert tokens["cached_input"] > 0
    inputs, cached, outputs = tokens["input"], tokens["cached_input"], tokens["output"]
    said = f"model {inputs} in ({cached} cached) / {outputs} out, ${summary['cost']:.4f}"
    assert said in done.stdout
    # The run's records hold each decision's usage as the provider reported it.
    records = [json.loads(x) for x in (out / "run.jsonl").read_text().splitlines()]
    assert [r["decision"]["usage"]["input_tokens"] for r in records] == [i for i, _ in fake.usages]


def test_a_refused_key_ends_the_run_with_exit_1_and_one_line(
    cli: Callable[..., Done], tmp_path: Path
) -> None:
    out = tmp_path / "run"
    with OrbitApp.start() as app, FakeOpenAI([Failure.unauthorized()]) as fake:
        done = cli(
            app.url,
            "--goal",
            GOAL,
            "--model",
            "openai:gpt-4.1-mini",
            "--api-key",
            "sk-wrong",
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
            env={},
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("pagesight: openai model 'gpt-4.1-mini' at ")
    assert "refused the request (HTTP 401: invalid api key); check the API key" in done.stderr
    assert len(fake.requests) == 1  # not retried
    assert "sk-wrong" not in done.stdout + done.stderr
    assert (out / "report.html").is_file() and not (out / "summary.json").exists()


def _refused(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> str:
    """Run ``pagesight run`` in this process; it must fail with exit 2 and one line, before
    a browser starts (the run's folder is made only once the browser has opened the page)."""
    code = main(["run", "http://127.0.0.1:9/", "--goal", GOAL, "--out", str(out), *args])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("pagesight: ")
    assert not out.exists()
    return captured.err


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_keys")
def test_a_missing_key_is_one_line_before_a_browser_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = _refused(capsys, tmp_path / "a", "--model", "anthropic:claude-haiku-4-5")
    assert err == (
        "pagesight: anthropic needs an API key: set ANTHROPIC_API_KEY or pass --api-key\n"
    )


@pytest.mark.usefixtures("no_keys")
def test_a_missing_sdk_is_one_line_before_a_browser_starts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # as if not installed: `import` fails
    err = _refused(capsys, tmp_path / "a", "--model", "ollama:qwen2.5-vl:7b")
    assert err == (
        "pagesight: ollama models need the openai SDK: pip install 'pagesight[openai]'\n"
    )


def test_an_unknown_provider_lists_the_known_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = _refused(capsys, tmp_path / "a", "--model", "gemini:pro")
    assert err.startswith("pagesight: --model: unknown provider 'gemini' in 'gemini:pro'; ")
    assert "providers: openai, anthropic, openrouter, ollama, vllm, lmstudio, llamacpp" in err


def test_model_options_with_steps_or_without_a_goal_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = _refused(capsys, tmp_path / "a")
    assert "--model: a --goal is given to a model: add --model PROVIDER:MODEL" in err
    with pytest.raises(SystemExit) as parsed:  # argparse refuses a malformed --price
        main(
            [
                "run",
                "http://127.0.0.1:9/",
                "--goal",
                GOAL,
                "--model",
                "openai:x",
                "--price",
                "1,two",
            ]
        )
    assert parsed.value.code == 2
    assert "--price: expected two prices ≥ 0" in capsys.readouterr().err
    code = main(["run", "http://127.0.0.1:9/", "--steps", "x.steps", "--model", "openai:m"])
    assert code == 2
    assert "--model: is for the model a --goal is given to" in capsys.readouterr().err


@pytest.mark.parametrize(
    "goal",
    [GOAL, "What is Alice Chen's job title?"],
    ids=["browser run", "text layer"],
)
def test_a_key_or_secret_the_server_quotes_back_is_never_printed_or_written(
    cli: Callable[..., Done], tmp_path: Path, goal: str
) -> None:
    # A proxy or a local server may echo the key it refuses, and a 400 may quote the
    # request (the goal, which names a secret's value): neither reaches the terminal or
    # the run's records. The read-only goal fails in the text layer, before any browser.
    out = tmp_path / "run"
    key, secret = "sk-live-ECHOED-0123456789", "hunter2-pw"
    said = f"Incorrect API key provided: {key}; request said {secret}"
    with OrbitApp.start() as app, FakeOpenAI([Failure(status=401, message=said)]) as fake:
        done = cli(
            app.url,
            "--goal",
            f"{goal} (password {secret})",
            "--model",
            "openai:gpt-4.1-mini",
            "--api-key",
            key,
            "--base-url",
            fake.base_url,
            "--secret",
            f"PW={secret}",
            "--out",
            str(out),
            env={},
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "(HTTP 401: Incorrect API key provided: [API key]; request said {{PW}})" in done.stderr
    written = [p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()]
    for text in [done.stdout, done.stderr, *written]:
        assert key not in text and secret not in text


def test_tools_full_shows_the_model_every_tool_one_for_one(
    cli: Callable[..., Done], tmp_path: Path
) -> None:
    with OrbitApp.start() as app, FakeOpenAI([capable] * 4, api_key="sk-cli") as fake:
        done = cli(
            app.url,
            "--goal",
            GOAL,
            "--model",
            "openai:gpt-4.1-mini",
            "--tools",
            "full",
            "--out",
            str(tmp_path / "run"),
            env={"OPENAI_API_KEY": "sk-cli", "OPENAI_BASE_URL": fake.base_url},
        )
    assert done.returncode == 0, done.stdout + done.stderr
    shown = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert {"click", "input", "select", "batch", "done", "tabs", "click_xy"} <= shown
    assert not shown & {"act", "use_tool"}


def test_an_unknown_tool_profile_is_one_line_and_exit_2(
    cli: Callable[..., Done], tmp_path: Path
) -> None:
    done = cli("http://127.0.0.1:9/", "--goal", GOAL, "--tools", "everything", env={})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "pagesight: argument --tools: invalid choice: 'everything' (choose from 'core', "
        "'vision', 'full') (see pagesight run --help)"
    ]
