"""Run records: run.jsonl line by line, marked screenshots, a summary only after a run that
ended on its own (never stale), no secret in any byte written, and a report that Chromium
opens and pagesight reads back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_support import Broken, FailingPlanner, ref
from conftest import StaticServer
from pagesight import Action, Agent, Batch, Browser, Done
from pagesight.agent import ScriptedPlanner, State
from pagesight.errors import RecordsNotWritten
from pagesight.vision.images import decode_png

TOKEN = "tok-8f3a-SECRET-55"
PASSWORD = "hunter2-correct-horse"


def _fill(s: State) -> Batch:
    return Batch(
        actions=(
            Action(
                tool="input",
                arguments={
                    "ref": ref(s, "Job title", "textbox"),
                    "text": "Senior Software Engineer",
                    "element": "the Job title field",
                },
            ),
            Action(
                tool="select",
                arguments={"ref": ref(s, "Location", "combobox"), "values": ["New York"]},
            ),
            Action(
                tool="input", arguments={"ref": ref(s, "API token", "textbox"), "text": "{{TOKEN}}"}
            ),
            Action(
                tool="input",
                arguments={"ref": ref(s, "Password", "textbox"), "text": "{{PASSWORD}}"},
            ),
        ),
        label="fill in Alice's title, location and credentials",
    )


def _save(s: State) -> Action:
    return Action(
        tool="click",
        arguments={"ref": ref(s, "Save", "button"), "element": "the Save button"},
        label="click the Save button",
    )


def _box(agent: Agent, element_id: str) -> list[tuple[int, int]]:
    """The pixels inside an element of the agent's page (CSS px = image px at ratio 1)."""
    assert agent.page is not None
    left, top, right, bottom = agent.page.playwright.evaluate(
        f"(() => {{ const r = document.getElementById('{element_id}').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom].map(Math.round); })()"
    )
    return [(x, y) for x in range(left + 2, right - 2) for y in range(top + 2, bottom - 2)]


def _task(browser: Browser, server: StaticServer, out: Path) -> tuple[Agent, object]:
    planner = ScriptedPlanner([_fill, _save, Done(label="both saved")])
    agent = Agent(browser, planner, out=out, secrets={"TOKEN": TOKEN, "PASSWORD": PASSWORD})
    return agent, agent.run(server.url("agent-contact.html"), goal="update Alice Chen")


def test_a_run_writes_its_folder_and_no_secret_reaches_any_byte(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    agent, result = _task(browser, server, out)
    for secret in (TOKEN, PASSWORD):  # the result keeps {{NAME}} too
        assert secret not in repr(result)
    assert "{{TOKEN}}" in repr(result)
    try:
        assert agent.page is not None
        saved = agent.page.playwright.evaluate("window.saved")
        assert (saved["token"], saved["password"]) == (TOKEN, PASSWORD)  # really typed
        field = _box(agent, "token")
    finally:
        if agent.page is not None:
            agent.page.close()
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "final.png", "report.html", "run.jsonl", "step-01.png", "step-02.png", "step-03.png",
        "steps.txt", "summary.json",
    ]  # fmt: skip
    lines = [json.loads(line) for line in (out / "run.jsonl").read_text().splitlines()]
    assert [line["step"] for line in lines] == [1, 2, 3]
    first = lines[0]
    assert set(first) >= {
        "time",
        "url",
        "observation",
        "decision",
        "calls",
        "seconds",
        "screenshot",
    }
    assert first["observation"]["mode"] == "cdp" and first["observation"]["tokens"] > 0
    assert first["decision"]["type"] == "batch"
    assert first["decision"]["actions"][2]["arguments"]["text"] == "{{TOKEN}}"
    assert [s["status"] for s in first["calls"][0]["value"]["steps"]] == ["done"] * 4
    assert lines[1]["calls"][0]["value"]["kinds"] == ["dom_change"]
    assert [(t["role"], t["name"]) for t in lines[1]["targets"]] == [("button", "Save")]
    assert [t["name"] for t in first["targets"]] == [
        "Job title",
        "Location",
        "API token",
        "Password",
    ]
    assert '+ text "Saved: Senior Software Engineer, New York"' in lines[1]["calls"][0]["text"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary == {
        **summary,
        "goal": "update Alice Chen",
        "stop_reason": "done",
        "steps": 3,
        "rounds": 3,
        "cost": None,
        "final_url": server.url("agent-contact.html"),
    }
    assert summary["tokens"] == sum(line["observation"]["tokens"] for line in lines)
    for path in out.iterdir():
        data = path.read_bytes()
        for secret in (TOKEN, PASSWORD):
            assert secret.encode() not in data, f"{secret} in {path.name}"
    # The token the page shows in its field is written as its placeholder ...
    typed = first["calls"][0]["value"]["steps"][2]["effect"]["values"][0]["after"]
    assert (typed["name"], typed["value"]) == ("API token", "{{TOKEN}}")
    # ... and its field is blacked out on the screenshots once it shows the token.
    before = decode_png((out / "step-01.png").read_bytes()).convert("RGB")
    after = decode_png((out / "step-02.png").read_bytes()).convert("RGB")
    assert sum(before.getpixel(p) == (0, 0, 0) for p in field) < len(field) // 10
    assert all(after.getpixel(p) == (0, 0, 0) for p in field)


def test_the_screenshot_marks_the_element_the_decision_chose(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    agent, result = _task(browser, server, tmp_path)
    assert agent.page is not None
    box = agent.page.playwright.evaluate(
        "(() => { const r = document.getElementById('save').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom].map(Math.round); })()"
    )
    agent.page.close()
    marked = decode_png((tmp_path / "step-02.png").read_bytes()).convert("RGB")
    plain = decode_png((tmp_path / "step-03.png").read_bytes()).convert("RGB")  # Done: none
    left, top, right, bottom = box
    green = (22, 163, 74)  # a button's mark: its dashed border runs just outside the box
    ring = [(x, top - 3) for x in range(left, right)] + [
        (x, bottom + 2) for x in range(left, right)
    ]
    assert sum(marked.getpixel(p) == green for p in ring) > len(ring) // 4
    assert not any(plain.getpixel(p) == green for p in ring)
    assert result is not None


def test_the_summary_is_absent_after_a_failure_and_a_stale_one_is_removed(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    (tmp_path / "summary.json").write_text('{"stop_reason": "done"}')  # an earlier run's
    (tmp_path / "step-09.png").write_bytes(b"old")
    planner = FailingPlanner(Action(tool="hover", arguments={"ref": 1}))
    agent = Agent(browser, planner, out=tmp_path)
    with pytest.raises(Broken):
        agent.run(server.url("agent-contact.html"), goal="x")
    if agent.page is not None:
        agent.page.close()
    assert not (tmp_path / "summary.json").exists()
    assert not (tmp_path / "step-09.png").exists()
    lines = (tmp_path / "run.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["step"] == 1  # what was written stays
    report = (tmp_path / "report.html").read_text()
    assert "<strong>The run failed:</strong> Broken: the planner broke on step 2" in report


def test_the_default_folder_is_under_runs_with_a_utc_timestamp(
    browser: Browser, server: StaticServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    agent = Agent(browser, ScriptedPlanner([Done()]))
    result = agent.run(server.url("agent-done.html"))
    if agent.page is not None:
        agent.page.close()
    assert result.folder.parent == Path("runs")
    assert len(result.folder.name) == len("20261201T203015Z") and result.folder.name.endswith("Z")
    assert (tmp_path / result.folder / "summary.json").exists()


def test_the_report_opens_in_chromium_and_shows_every_step(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    agent, result = _task(browser, server, tmp_path)
    if agent.page is not None:
        agent.page.close()
    report = browser.open(str(tmp_path / "report.html"))
    try:
        obs = report.observe()
        text = obs.text()
        headings = [n.name for root in obs.tree for n in root.walk() if n.role == "heading"]
        assert headings[:5] == [
            f"pagesight run {tmp_path.name}",
            "Step 1: fill in Alice's title, location and credentials",
            "Step 2: click the Save button",
            "Step 3: both saved",
            "Final state",
        ]
        assert "click ref=" in text and '"the Save button"' in text
        assert "Saved: Senior Software Engineer, New York" in text
        assert 'button "Save" in "Alice Chen"' in text  # the element step 2 acted on
        assert "3 (3 rounds)" in text  # the summary: steps and rounds
        sources = report.playwright.evaluate("[...document.images].map(i => i.src.slice(0, 22))")
        assert sources == ["data:image/png;base64,"] * 4  # three steps and the final state
        loaded = report.playwright.evaluate(
            "[...document.images].every(i => i.naturalWidth === 1280)"
        )
        assert loaded is True
        # Self-contained: nothing fetched, nothing referenced (a stylesheet link, a CSS
        # url(), a script) but the inline images.
        fetched = report.playwright.evaluate(
            "performance.getEntriesByType('resource').map(e => e.name)"
        )
        assert fetched == []
        referenced = report.playwright.evaluate(
            "[...document.querySelectorAll('[src], [href], link, script, iframe, object')]"
            ".map(e => e.getAttribute('src') || e.getAttribute('href') || e.tagName)"
            ".filter(s => !s.startsWith('data:image/png;base64,'))"
        )
        assert referenced == []
        assert "url(" not in "".join(
            report.playwright.evaluate(
                "[...document.styleSheets].map(s => s.ownerNode.textContent)"
            )
        )
        assert result is not None
    finally:
        report.close()


def test_a_planner_gets_the_screenshot_with_marks_and_secrets_blacked_out(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    shots: list[bytes] = []

    async def look(state: State) -> Done:
        shots.append(await state.screenshot())
        shots.append(await state.screenshot(marks=True))
        return Done()

    class Looking:
        async def decide(self, state: State) -> Action | Done:
            if state.step == 1:
                return Action(
                    tool="input",
                    arguments={"ref": ref(state, "API token", "textbox"), "text": "{{TOKEN}}"},
                )
            return await look(state)

    agent = Agent(browser, Looking(), out=tmp_path, secrets={"TOKEN": TOKEN})
    agent.run(server.url("agent-contact.html"))
    try:
        field = _box(agent, "token")
    finally:
        if agent.page is not None:
            agent.page.close()
    plain, marked = (decode_png(png).convert("RGB") for png in shots)
    assert all(plain.getpixel(p) == (0, 0, 0) for p in field)
    assert all(marked.getpixel(p) == (0, 0, 0) for p in field)
    green = (22, 163, 74)  # the marks of buttons (Save); none on the plain screenshot
    assert green in {c for _, c in marked.getcolors(1 << 20) or []}
    assert green not in {c for _, c in plain.getcolors(1 << 20) or []}


def test_the_report_escapes_what_the_run_wrote(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    goal = 'find "<b>bold</b>" & <img src=x onerror=alert(1)>'
    agent = Agent(browser, ScriptedPlanner([Done(answer="<i>it</i>")]), out=tmp_path)
    agent.run(server.url("agent-done.html"), goal=goal)
    if agent.page is not None:
        agent.page.close()
    report = browser.open(str(tmp_path / "report.html"))
    try:
        summary = report.playwright.evaluate(
            "(() => { const s = document.querySelector('section[aria-label=Summary]');"
            " return [s.innerText, s.querySelectorAll('b, i, img').length]; })()"
        )
        assert goal in summary[0] and "<i>it</i>" in summary[0]
        assert summary[1] == 0  # text, not markup
    finally:
        report.close()


def test_a_secret_an_error_quotes_with_escapes_is_masked_too(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A password with a backslash and a quote: an error that quotes the typed text with
    # repr() doubles the backslash, JSON escapes the quote, so the plain value is not there
    # to be found, yet the password can be read off the record.
    secret = 'correct-horse\\battery-staple"9'
    planner = ScriptedPlanner(
        [
            lambda s: Action(
                tool="input",
                arguments={"ref": ref(s, "Amount", "spinbutton"), "text": "{{PIN}}"},
            ),
            Done(),
        ]
    )
    agent = Agent(browser, planner, out=tmp_path, secrets={"PIN": secret})
    result = agent.run(server.url("act-misc.html"))
    if agent.page is not None:
        agent.page.close()
    error = result.steps[0].error
    assert error is not None and error.reason == "not_editable"
    assert "does not take the text '{{PIN}}'" in error.message
    for fragment in ("correct-horse", "battery-staple"):  # not in base64's alphabet
        assert fragment not in repr(result)
        for path in tmp_path.iterdir():
            assert fragment.encode() not in path.read_bytes(), f"{fragment} in {path.name}"


class _Leaking:
    """Types the token, then fails with an error that quotes it (a planner's bug, a model
    client's error echoing what it read); with ``remove``, after deleting the run's folder."""

    def __init__(self, remove: Path | None = None) -> None:
        self.remove = remove

    async def decide(self, state: State) -> Action:
        if state.step == 1:
            return Action(
                tool="input",
                arguments={"ref": ref(state, "API token", "textbox"), "text": "{{TOKEN}}"},
            )
        if self.remove is not None:
            shutil.rmtree(self.remove)
        raise Broken(f"the field shows {TOKEN}")


def test_an_error_escaping_the_run_does_not_carry_a_secret(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    agent = Agent(browser, _Leaking(), out=tmp_path, secrets={"TOKEN": TOKEN})
    with pytest.raises(Broken) as caught:
        agent.run(server.url("agent-contact.html"))
    if agent.page is not None:
        agent.page.close()
    assert str(caught.value) == "the field shows {{TOKEN}}"
    assert (
        "The run failed:</strong> Broken: the field shows {{TOKEN}}"
        in (tmp_path / "report.html").read_text()
    )
    assert not (tmp_path / "summary.json").exists()


def test_records_that_cannot_be_finished_do_not_hide_the_runs_own_error(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    agent = Agent(browser, _Leaking(remove=out), out=out, secrets={"TOKEN": TOKEN})
    with pytest.raises(Broken) as caught:  # not the FileNotFoundError of writing steps.txt
        agent.run(server.url("agent-contact.html"))
    if agent.page is not None:
        agent.page.close()
    assert str(caught.value) == "the field shows {{TOKEN}}"
    (note,) = caught.value.__notes__
    assert note.startswith("the run's records could not be finished: FileNotFoundError")


def test_each_line_of_run_jsonl_is_on_disk_once_its_step_is_told(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A run killed after any step leaves lines that each parse: read the file from on_step,
    # as a person tailing it would, while the run still holds it open.
    seen: list[list[int]] = []

    def tail(step: object) -> None:
        lines = (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()
        seen.append([json.loads(line)["step"] for line in lines])

    agent = Agent(
        browser,
        ScriptedPlanner([_fill, _save, Done()]),
        out=tmp_path,
        secrets={"TOKEN": TOKEN, "PASSWORD": PASSWORD},
        on_step=tail,
    )
    agent.run(server.url("agent-contact.html"))
    if agent.page is not None:
        agent.page.close()
    assert seen == [[1], [1, 2], [1, 2, 3]]


def test_a_secret_in_a_url_is_masked_as_the_browser_encoded_it(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A magic link: the key goes in a query, and page.url gives it back percent-encoded
    # (open-sesame%2042/x), which the plain value does not match.
    key = "open-sesame 42/x"
    go = Action(tool="navigate", arguments={"url": server.url("agent-done.html?key={{KEY}}")})
    agent = Agent(browser, ScriptedPlanner([go, Done()]), out=tmp_path, secrets={"KEY": key})
    result = agent.run(server.url("agent-contact.html"))
    assert agent.page is not None
    try:
        assert agent.page.url.endswith("?key=open-sesame%2042/x")  # really went there
    finally:
        agent.page.close()
    assert result.final_url == server.url("agent-done.html?key={{KEY}}")
    assert result.steps[1].url == result.final_url
    assert "open-sesame" not in repr(result)
    for path in tmp_path.iterdir():
        assert b"open-sesame" not in path.read_bytes(), path.name


def test_no_summary_when_the_last_records_of_a_run_cannot_be_written(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # summary.json is written last: there, it says the run ended on its own and every record
    # of it is there too. Here report.html cannot be written (a folder took its name).
    def done(state: State) -> Done:
        (tmp_path / "report.html").mkdir()
        return Done()

    agent = Agent(browser, ScriptedPlanner([done]), out=tmp_path)
    with pytest.raises(RecordsNotWritten, match=r"the run's report.html in .*: Is a directory"):
        agent.run(server.url("agent-done.html"))
    if agent.page is not None:
        agent.page.close()
    assert not (tmp_path / "summary.json").exists()
    assert (tmp_path / "steps.txt").exists() and (tmp_path / "run.jsonl").exists()


class _ReadingBack:
    """Types the token, then reads the field back off the page as it is (a planner in this
    process sees the secret the page shows) and ends quoting it: in its answer, its label,
    and an error it keeps in its raw answer (written by its ``str``)."""

    async def decide(self, state: State) -> Action | Done:
        if state.step == 1:
            return Action(
                tool="input",
                arguments={"ref": ref(state, "API token", "textbox"), "text": "{{TOKEN}}"},
            )
        shown = next(e.value for e in state.observation.elements if e.name == "API token")
        assert shown == TOKEN  # the page as it is, not as a model is shown it
        return Done(
            answer=f"the API token field holds {shown}",
            label=f"read {shown} back",
            raw={"checked": ValueError(f"expected {shown}")},
        )


def test_what_a_planner_quotes_of_a_secret_is_masked_in_every_record(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    agent = Agent(browser, _ReadingBack(), out=tmp_path, secrets={"TOKEN": TOKEN})
    result = agent.run(server.url("agent-contact.html"), goal="check the token")
    if agent.page is not None:
        agent.page.close()
    assert result.stop_reason == "done"
    for path in tmp_path.iterdir():
        assert TOKEN.encode() not in path.read_bytes(), f"the token in {path.name}"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["answer"] == "the API token field holds {{TOKEN}}"
    done = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[-1])["decision"]
    assert (done["answer"], done["label"]) == (summary["answer"], "read {{TOKEN}} back")
    assert done["raw"] == {"checked": "expected {{TOKEN}}"}
    assert "the API token field holds {{TOKEN}}" in (tmp_path / "report.html").read_text()
