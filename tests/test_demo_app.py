"""Orbit CRM, the bundled app: driven by pagesight itself in real Chromium, its saved state read
from its real SQLite file."""

from __future__ import annotations

import csv
import io
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pagesight import DialogPolicy, Observation
from pagesight.demo import OrbitApp
from pagesight.errors import InvalidOption
from support import line, named, one


@pytest.fixture
def orbit() -> Iterator[OrbitApp]:
    """A fresh Orbit CRM (its own database) for each test."""
    with OrbitApp.start() as app:
        yield app


@pytest.fixture(autouse=True)
def english(page: Any) -> Iterator[None]:
    """Each test starts in English: cookies ignore the port, so a ``lang`` cookie one test
    leaves would reach every later app on 127.0.0.1 in the session's browser."""
    page.playwright.context.clear_cookies(name="lang")
    yield
    page.playwright.context.clear_cookies(name="lang")


def _open(page: Any, orbit: OrbitApp, path: str) -> Observation:
    page.navigate(orbit.url + path)
    obs: Observation = page.observe()
    return obs


def _contact(orbit: OrbitApp, name: str) -> dict[str, Any]:
    (row,) = orbit.query("SELECT * FROM contacts WHERE name = ?", (name,))
    return row


def _edit_link(obs: Observation, name: str) -> int:
    """The id of the "Edit" link in the table row of ``name`` (the rows' links say only Edit)."""
    rows = [ln for ln in obs.text().splitlines() if f'link "{name}"' in ln]
    assert len(rows) == 1, obs.text()
    edit = [el for el in named(obs, "Edit") if f"[{el.id}] link" in rows[0]]
    assert len(edit) == 1, rows[0]
    return edit[0].id


def test_the_demo_task_alice_chen_becomes_senior_in_new_york(page: Any, orbit: OrbitApp) -> None:
    obs = _open(page, orbit, "/contacts")
    search = one(obs, "Search contacts", "searchbox")
    found = page.act(search.id, "input", text="Alice Chen")
    assert found.observation.url.endswith("/contacts?q=Alice+Chen")  # replaceState, no reload
    assert "1 contact" in found.texts_added
    assert [el.name for el in found.observation.elements if el.name.endswith("Chen")] == [
        "Alice Chen"
    ]

    opened = page.act(one(found.observation, "Alice Chen", "link").id, "click")
    assert "navigation" in opened.kinds
    assert opened.url_after == f"{orbit.url}/contacts/{_contact(orbit, 'Alice Chen')['id']}"
    form = page.act(one(opened.observation, "Edit", "link").id, "click").observation
    assert one(form, "Job title", "textbox").value == "Software Engineer"
    assert one(form, "Location", "combobox").value == "London"

    typed = page.act(one(form, "Job title", "textbox").id, "input", text="Senior Software Engineer")
    assert "value_change" in typed.kinds
    chosen = page.act(one(form, "Location", "combobox").id, "select", values="New York")
    assert [(b.value, a.value) for b, a in chosen.values] == [("London", "New York")]
    saved = page.act(one(form, "Save", "button").id, "click")

    assert "navigation" in saved.kinds
    shown = saved.observation  # the contact page, loaded anew after the POST and redirect
    assert shown.title == "Alice Chen · Orbit CRM"
    assert line(shown, "Saved:") == (
        "Saved: Job title → Senior Software Engineer; Location → New York"
    )
    details = page.playwright.evaluate(
        "() => [document.getElementById('job-title').textContent,"
        " document.getElementById('location').textContent]"
    )
    assert details == ["Senior Software Engineer", "New York"]
    row = _contact(orbit, "Alice Chen")
    assert (row["job_title"], row["location"]) == ("Senior Software Engineer", "New York")
    assert (row["team"], row["newsletter"], row["follow_up"]) == ("Platform", 1, "2026-12-15")


@pytest.mark.parametrize("design", ["default", "redesign"])
def test_search_narrows_the_list_as_you_type_and_clearing_it_brings_all_back(
    page: Any, design: str
) -> None:
    with OrbitApp.start(design=design) as orbit:
        _search_narrows(page, orbit)


def _search_narrows(page: Any, orbit: OrbitApp) -> None:
    obs = _open(page, orbit, "/contacts")
    assert line(obs, "14 contacts") == "14 contacts"
    search = one(obs, "Search contacts", "searchbox")
    eff = page.act(search.id, "input", text="chen")
    names = [el.name for el in eff.observation.elements if el.role == "link"]
    assert "Alice Chen" in names and "Wei Chen" in names and "Bob Martin" not in names
    assert "2 contacts" in eff.texts_added
    assert len(named(eff.observation, "Edit")) == 2
    nothing = page.act(search.id, "input", text="nobody by this name")
    assert "No contacts match your search." in nothing.texts_added
    everyone = page.act(search.id, "input", text="")
    assert len(named(everyone.observation, "Edit")) == 14


def test_the_team_combobox_picks_a_team_by_select_by_keys_and_by_clicks(
    page: Any, orbit: OrbitApp
) -> None:
    alice = _contact(orbit, "Alice Chen")
    form = _open(page, orbit, f"/contacts/{alice['id']}/edit")
    team = one(form, "Team", "combobox")
    assert team.value == "Platform"

    picked = page.act(team.id, "select", values="Security")
    after = one(picked.observation, "Team", "combobox")
    assert after.value == "Security" and "expanded" not in after.states
    assert page.playwright.evaluate("document.getElementById('team-value').value") == "Security"

    # The keyboard: ArrowDown opens the list at the chosen team, ArrowUp moves, Enter picks.
    page.act(team.id, "press_key", key="ArrowDown")
    assert page.playwright.evaluate("document.getElementById('team').ariaExpanded") == "true"
    page.act(team.id, "press_key", key="ArrowUp")
    keyed = page.act(team.id, "press_key", key="Enter")
    assert one(keyed.observation, "Team", "combobox").value == "Data"  # the team before Security

    # Clicks: open the list, click an option.
    opened = page.act(team.id, "click")
    design = one(opened.observation, "Design", "option")
    clicked = page.act(design.id, "click")
    assert one(clicked.observation, "Team", "combobox").value == "Design"

    page.act(one(clicked.observation, "Save", "button").id, "click")
    assert _contact(orbit, "Alice Chen")["team"] == "Design"


def test_the_other_fields_of_the_form_are_saved_too(page: Any, orbit: OrbitApp) -> None:
    bob = _contact(orbit, "Bob Martin")
    form = _open(page, orbit, f"/contacts/{bob['id']}/edit")
    page.act(one(form, "Subscribed to the newsletter", "checkbox").id, "click")
    page.act(one(form, "Next follow-up", "date").id, "input", text="2027-03-09")
    page.act(one(form, "Company", "textbox").id, "input", text="Acme Holdings")
    saved = page.act(one(form, "Save", "button").id, "click")
    assert line(saved.observation, "Saved:") == (
        "Saved: Company → Acme Holdings; Subscribed to the newsletter → Yes; "
        "Next follow-up → 2027-03-09"
    )
    row = _contact(orbit, "Bob Martin")
    assert (row["company"], row["newsletter"], row["follow_up"]) == (
        "Acme Holdings",
        1,
        "2027-03-09",
    )


def test_a_form_the_server_rejects_says_why_and_saves_nothing(page: Any, orbit: OrbitApp) -> None:
    bob = _contact(orbit, "Bob Martin")
    form = _open(page, orbit, f"/contacts/{bob['id']}/edit")
    page.act(one(form, "Full name", "textbox").id, "input", text="")
    page.act(one(form, "Email", "textbox").id, "input", text="not an address")
    refused = page.act(one(form, "Save", "button").id, "click")
    text = refused.observation.text()
    assert "Please correct the fields marked below." in text
    assert "Enter a name." in text and "Enter an email address such as name@example.com." in text
    assert "invalid" in one(refused.observation, "Full name", "textbox").states
    assert _contact(orbit, "Bob Martin")["email"] == bob["email"]


def test_delete_asks_first_and_deletes_only_when_confirmed(page: Any, orbit: OrbitApp) -> None:
    bob = _contact(orbit, "Bob Martin")
    obs = _open(page, orbit, f"/contacts/{bob['id']}")
    delete = one(obs, "Delete contact", "button")

    kept = page.act(delete.id, "click")  # confirms are dismissed by default
    assert "dialog" in kept.kinds and "navigation" not in kept.kinds
    (asked,) = kept.dialogs
    assert (asked.type, asked.accepted) == ("confirm", False)
    assert asked.message == "Delete Bob Martin? This cannot be undone."
    assert orbit.query("SELECT count(*) AS n FROM contacts WHERE name = 'Bob Martin'") == [{"n": 1}]

    page.dialogs = DialogPolicy(confirm="accept")
    gone = page.act(delete.id, "click")
    assert "dialog" in gone.kinds and "navigation" in gone.kinds
    assert gone.dialogs[0].accepted
    assert gone.url_after.startswith(f"{orbit.url}/contacts?deleted=")
    assert line(gone.observation, "Deleted") == "Deleted Bob Martin."
    assert not named(gone.observation, "Bob Martin")
    assert orbit.query("SELECT count(*) AS n FROM contacts WHERE name = 'Bob Martin'") == [{"n": 0}]
    # The deal stays on the board, no longer tied to anyone.
    assert orbit.query("SELECT contact_id FROM deals WHERE title LIKE 'Acme renewal%'") == [
        {"contact_id": None}
    ]


def test_csv_export_is_a_download_of_every_contact(page: Any, orbit: OrbitApp) -> None:
    obs = _open(page, orbit, "/contacts")
    eff = page.act(one(obs, "Export CSV", "link").id, "click")
    assert "download" in eff.kinds and "navigation" not in eff.kinds
    (download,) = eff.downloads
    assert download.filename == "orbit-contacts.csv"
    assert download.path is not None
    rows = list(csv.DictReader(io.StringIO(download.path.read_text(encoding="utf-8"))))
    assert len(rows) == 14
    alice = next(r for r in rows if r["name"] == "Alice Chen")
    assert (alice["job_title"], alice["location"], alice["newsletter"]) == (
        "Software Engineer",
        "London",
        "yes",
    )


def test_the_public_profile_opens_in_a_new_tab(page: Any, browser: Any, orbit: OrbitApp) -> None:
    alice = _contact(orbit, "Alice Chen")
    obs = _open(page, orbit, f"/contacts/{alice['id']}")
    eff = page.act(one(obs, "Open public profile", "link").id, "click")
    assert "new_tab" in eff.kinds and "navigation" not in eff.kinds
    (opened,) = eff.new_tabs
    assert opened.url == f"{orbit.url}/contacts/{alice['id']}/profile"
    tab = browser.page(opened.id)
    try:
        profile = tab.observe()
        assert line(profile, "Software Engineer") == "Software Engineer at Northwind Labs"
        assert line(profile, "Based in") == "Based in London"
    finally:
        tab.close()
    assert page.url == f"{orbit.url}/contacts/{alice['id']}"


def test_a_message_sent_to_a_contact_lands_in_the_inbox_and_the_database(
    page: Any, orbit: OrbitApp
) -> None:
    alice = _contact(orbit, "Alice Chen")
    obs = _open(page, orbit, f"/contacts/{alice['id']}")
    form = page.act(one(obs, "Send message", "link").id, "click").observation
    assert one(form, "To", "combobox").value == "Alice Chen"  # chosen from her page
    page.act(one(form, "Subject", "textbox").id, "input", text="Your new role")
    page.act(one(form, "Message", "textbox").id, "input", text="Congratulations, Alice!\nSee you.")
    sent = page.act(one(form, "Send", "button").id, "click")

    assert "navigation" in sent.kinds and sent.url_after.startswith(f"{orbit.url}/messages?sent=")
    inbox = sent.observation
    assert line(inbox, "Message sent") == "Message sent to Alice Chen."
    newest = inbox.text().split('article "', 2)[1]  # the first message listed
    assert newest.startswith('Your new role"') and "Congratulations, Alice!" in newest
    assert orbit.query(
        "SELECT contact_id, direction, subject, body FROM messages ORDER BY id DESC LIMIT 1"
    ) == [
        {
            "contact_id": alice["id"],
            "direction": "out",
            "subject": "Your new role",
            "body": "Congratulations, Alice!\nSee you.",
        }
    ]


def test_a_message_with_no_subject_is_sent_back_with_what_to_fix(
    page: Any, orbit: OrbitApp
) -> None:
    form = _open(page, orbit, "/messages/new")
    assert one(form, "To", "combobox").value == "Choose a contact"
    page.act(one(form, "Message", "textbox").id, "input", text="Hello")
    refused = page.act(one(form, "Send", "button").id, "click")
    text = refused.observation.text()
    assert "Choose who the message is for." in text and "Enter a subject." in text
    assert one(refused.observation, "Message", "textbox").value == "Hello"  # kept for the retry
    assert orbit.query("SELECT count(*) AS n FROM messages") == [{"n": 4}]  # the seeded ones


def test_a_rich_text_note_is_saved_without_a_reload(page: Any, orbit: OrbitApp) -> None:
    alice = _contact(orbit, "Alice Chen")
    obs = _open(page, orbit, f"/contacts/{alice['id']}")
    editor = one(obs, "New note", "textbox")
    page.act(editor.id, "input", text="Wants a demo of the analytics tier")
    page.act(editor.id, "press_key", key="Control+A")
    page.act(one(obs, "Bold", "button").id, "click")
    saved = page.act(one(obs, "Save note", "button").id, "click")

    assert "navigation" not in saved.kinds and "dom_change" in saved.kinds
    assert "Note saved." in saved.texts_added
    assert "Wants a demo of the analytics tier" in saved.texts_added
    assert page.playwright.evaluate("document.getElementById('note-editor').textContent") == ""
    (note,) = orbit.query(
        "SELECT html FROM notes WHERE contact_id = ? ORDER BY id DESC LIMIT 1", (alice["id"],)
    )
    assert "<b>Wants a demo of the analytics tier</b>" in note["html"]


def test_a_deal_dragged_to_another_column_is_saved_and_the_select_moves_one_too(
    page: Any, orbit: OrbitApp
) -> None:
    obs = _open(page, orbit, "/deals")
    card = one(obs, "Bluebird design system", "listitem")
    won = one(obs, "Won", "region")  # a column: a drop zone named by its heading
    eff = page.act(card.id, "drag", to=won.id)
    assert eff.moved is not None and eff.moved.box_after != eff.moved.box_before
    assert "Moved Bluebird design system to Won." in eff.texts_added
    assert (
        page.playwright.evaluate(
            "document.getElementById('deal-3').closest('.column').dataset.stage"
        )
        == "won"
    )
    assert orbit.query("SELECT stage FROM deals WHERE title = 'Bluebird design system'") == [
        {"stage": "won"}
    ]

    # The keyboard way: the card's "Move to…" list.
    move = one(obs, "Move Quantix data pipeline to", "combobox")
    moved = page.act(move.id, "select", values="Proposal")
    assert "Moved Quantix data pipeline to Proposal." in moved.texts_added
    assert orbit.query("SELECT stage FROM deals WHERE title = 'Quantix data pipeline'") == [
        {"stage": "proposal"}
    ]
    # Reloaded, the board shows what was saved.
    again = _open(page, orbit, "/deals")
    lost_or_won = again.text().split('region "Won"')[1].split("region")[0]
    assert "Bluebird design system" in lost_or_won


def test_the_language_toggle_turns_every_label_chinese(page: Any, orbit: OrbitApp) -> None:
    alice = _contact(orbit, "Alice Chen")
    obs = _open(page, orbit, f"/contacts/{alice['id']}/edit")
    switched = page.act(one(obs, "中文", "button").id, "click")
    assert "navigation" in switched.kinds
    assert switched.url_after == f"{orbit.url}/contacts/{alice['id']}/edit"  # back where it was
    form = switched.observation
    assert page.playwright.evaluate("document.documentElement.lang") == "zh-CN"
    for label, role in [
        ("职位", "textbox"),
        ("地点", "combobox"),
        ("团队", "combobox"),
        ("订阅新闻简报", "checkbox"),
        ("下次跟进", "date"),
        ("保存", "button"),
        ("English", "button"),
    ]:
        one(form, label, role)
    assert [el.context for el in named(form, "联系人")] == ["主导航", "导航路径"]  # nav, crumbs
    assert one(form, "职位", "textbox").value == "Software Engineer"  # the data stays as typed
    assert not named(form, "Save") and not named(form, "Job title")

    contacts = _open(page, orbit, "/contacts")
    one(contacts, "搜索联系人", "searchbox")
    one(contacts, "导出 CSV", "link")
    found = page.act(one(contacts, "搜索联系人", "searchbox").id, "input", text="chen")
    assert "2 个联系人" in found.texts_added  # drawn by the page script, in Chinese too
    assert len(named(found.observation, "编辑")) == 2
    board = _open(page, orbit, "/deals")
    for stage in ("线索", "已确认", "方案", "赢单", "丢单"):
        one(board, stage, "region")

    back = page.act(one(board, "English", "button").id, "click").observation
    assert 'h1 "Deal board"' in back.text()
    one(back, "Won", "region")


def test_the_settings_page_chooses_the_language_too(page: Any, orbit: OrbitApp) -> None:
    obs = _open(page, orbit, "/settings")
    page.act(one(obs, "中文 (Chinese)", "radio").id, "click")
    saved = page.act(one(obs, "Save settings", "button").id, "click").observation
    assert line(saved, "设置已保存") == "设置已保存。"
    assert "checked" in one(saved, "中文", "radio").states
    one(saved, "保存设置", "button")
    assert page.playwright.context.cookies(orbit.url)[0]["value"] == "zh"


def test_two_apps_do_not_share_state(orbit: OrbitApp) -> None:
    with OrbitApp.start() as other:
        assert other.url != orbit.url and other.db_path != orbit.db_path
        other.query("UPDATE contacts SET job_title = 'CTO' WHERE name = 'Alice Chen'")
        assert _contact(other, "Alice Chen")["job_title"] == "CTO"
        assert _contact(orbit, "Alice Chen")["job_title"] == "Software Engineer"
        scratch = other.db_path.parent
    assert not scratch.exists()  # a temporary database goes with its app


def test_a_database_path_keeps_state_across_starts(tmp_path: Path) -> None:
    path = tmp_path / "orbit.sqlite3"
    with OrbitApp.start(db=path) as first:
        first.query("UPDATE contacts SET location = 'Tokyo' WHERE name = 'Alice Chen'")
    with OrbitApp.start(db=path) as second:
        assert _contact(second, "Alice Chen")["location"] == "Tokyo"
        assert second.query("SELECT count(*) AS n FROM contacts") == [{"n": 14}]  # not re-seeded
    assert path.exists()


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda tmp: tmp / "missing-folder" / "orbit.sqlite3", "no folder"),
        (lambda tmp: tmp, "is a folder"),
        (
            lambda tmp: _write(tmp / "notes.txt", b"just text\n" * 100),
            "cannot be used as an SQLite",
        ),
    ],
)
def test_a_database_path_that_cannot_be_one_is_refused(
    tmp_path: Path, make: Any, expected: str
) -> None:
    with pytest.raises(InvalidOption, match=expected) as caught:
        OrbitApp.start(db=make(tmp_path))
    assert caught.value.option == "db"


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_port_in_use_is_refused(orbit: OrbitApp) -> None:
    with pytest.raises(InvalidOption, match="already in use") as caught:
        OrbitApp.start(port=orbit.port)
    assert caught.value.option == "port"


def _words(obs: Observation) -> list[tuple[str, str]]:
    return sorted((el.role, el.name) for el in obs.elements)


def _selectors(obs: Observation) -> set[str]:
    return {" >> ".join(el.markup.path) for el in obs.elements if el.markup is not None}


@pytest.mark.parametrize("path", ["/contacts", "/contacts/{id}", "/contacts/{id}/edit"])
def test_the_redesign_changes_the_markup_of_the_demo_pages_not_their_words(
    page: Any, orbit: OrbitApp, path: str
) -> None:
    with OrbitApp.start(design="redesign") as redesign:
        alice = _contact(redesign, "Alice Chen")["id"]
        new = _open(page, redesign, path.format(id=alice))
        new_selectors = _selectors(page.observe(include={"selector"}))
    old = _open(page, orbit, path.format(id=alice))
    old_selectors = _selectors(page.observe(include={"selector"}))
    # The same elements by what a person reads: roles and names, in any order.
    assert _words(new) == _words(old)
    # In other markup: the selectors a recorded run keeps as hints are not the same.
    assert new_selectors and new_selectors != old_selectors


def test_an_unknown_design_is_refused_before_anything_starts() -> None:
    with pytest.raises(InvalidOption, match="one of default, redesign, not 'retro'") as caught:
        OrbitApp.start(design="retro")
    assert caught.value.option == "design"


# `pagesight demo serve`, run as a real process.
REPO = Path(__file__).resolve().parent.parent
SERVING = re.compile(r"^Orbit CRM on (http://127\.0\.0\.1:\d+) \(database (.+)\); Ctrl-C stops it$")


def _serve(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pagesight", "demo", "serve", *args],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"pagesight demo serve did not stop: {proc.args!r}\n{err}")
    return proc.returncode, out, err


def test_demo_serve_answers_until_sigterm_then_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "crm.sqlite3"
    proc = _serve("--db", str(path))
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().rstrip("\n")  # printed once it is serving
        serving = SERVING.match(first)
        assert serving, first
        assert Path(serving.group(2)) == path.resolve()
        with urllib.request.urlopen(serving.group(1) + "/contacts", timeout=10) as reply:
            assert reply.status == 200
            assert "Alice Chen" in reply.read().decode()
    finally:
        proc.send_signal(signal.SIGTERM)
    code, out, err = _finish(proc)
    assert (code, out, err) == (0, "", "")
    assert _query_file(path, "SELECT count(*) FROM contacts") == 14  # the database stays


def test_demo_serve_stopped_removes_its_temporary_database() -> None:
    proc = _serve()
    try:
        assert proc.stdout is not None
        serving = SERVING.match(proc.stdout.readline().rstrip("\n"))
        assert serving
        database = Path(serving.group(2))
        assert database.exists()
    finally:
        proc.send_signal(signal.SIGTERM)
    code, out, err = _finish(proc)
    assert (code, out, err) == (0, "", "")
    assert not database.parent.exists()


def test_demo_serve_stopped_by_ctrl_c_exits_without_a_traceback() -> None:
    proc = _serve()
    try:
        assert proc.stdout is not None
        serving = SERVING.match(proc.stdout.readline().rstrip("\n"))
        assert serving
        # A connection kept open after its answer, as a browser keeps it, when Ctrl-C comes.
        port = int(serving.group(1).rsplit(":", 1)[1])
        kept = socket.create_connection(("127.0.0.1", port), timeout=10)
        kept.sendall(b"GET /contacts HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert kept.recv(12) == b"HTTP/1.1 200"
    finally:
        proc.send_signal(signal.SIGINT)
    code, out, err = _finish(proc)
    kept.close()
    assert "Traceback" not in err, err
    assert (out, err) == ("", "")  # its exit code is the command's to choose (0, or 130)
    assert code >= 0  # an exit, not a death by a signal


class _Interrupted(Exception):
    pass


def test_orbit_interrupted_while_it_waits_stops_its_server_before_close_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What `demo serve` does on Ctrl-C: wait() interrupted by a signal, then close(). A
    # thread's join() interrupted so took the server's thread for ended while it served, and
    # close() pulled the socket from under its shutdown: a traceback, cut off by the exit.
    failures: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", failures.append)

    def interrupt(signum: int, frame: object) -> None:
        raise _Interrupted

    previous = signal.signal(signal.SIGUSR1, interrupt)
    try:
        app = OrbitApp.start()
        (served,) = [t for t in threading.enumerate() if t.name == "orbit-crm"]
        main = threading.main_thread()

        def signal_once_waiting() -> None:
            while not _waits_in(sys._current_frames()[main.ident or 0], "wait", "server.py"):
                time.sleep(0.01)  # readiness: the main thread blocked in wait()
            signal.pthread_kill(main.ident or 0, signal.SIGUSR1)

        sender = threading.Thread(target=signal_once_waiting)
        sender.start()
        with pytest.raises(_Interrupted):
            app.wait()
        sender.join()
        app.close()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    deadline = time.monotonic() + 10
    task = Path(f"/proc/self/task/{served.native_id}")
    while task.exists() and time.monotonic() < deadline:  # readiness: the thread is gone
        time.sleep(0.01)
    assert not task.exists()
    assert [f.exc_value for f in failures] == []


def _waits_in(frame: Any, function: str, file: str) -> bool:
    while frame is not None:
        if frame.f_code.co_name == function and frame.f_code.co_filename.endswith(file):
            return True
        frame = frame.f_back
    return False


def _query_file(path: Path, sql: str) -> Any:
    import sqlite3

    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchone()[0]


def test_demo_serve_on_a_port_in_use_says_so_in_one_line_and_exits_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = _finish(_serve("--port", str(port)))
    assert (code, out) == (2, "")
    assert err == (
        f"pagesight: --port: 127.0.0.1:{port} is already in use by another program; "
        "choose another port, or 0 for a free one\n"
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--db", "/nonexistent-folder/orbit.sqlite3"],
            "pagesight: --db: no folder '/nonexistent-folder'",
        ),
        (["--db", "/"], "pagesight: --db: '/' is a folder"),
        (["--port", "70000"], "pagesight: --port: port must be a number from 0 to 65535"),
        (["--port", "eighty"], "pagesight: argument --port: invalid int value: 'eighty'"),
        (
            ["--design", "retro"],
            "pagesight: --design: design must be one of default, redesign, not 'retro'",
        ),
    ],
)
def test_demo_serve_refuses_bad_input_in_one_line_with_exit_2(
    args: list[str], expected: str
) -> None:
    code, out, err = _finish(_serve(*args))
    assert (code, out) == (2, "")
    assert err.startswith(expected) and err.count("\n") == 1, err


# Findings: what a person does on Orbit CRM that pagesight did not read right, each once a
# strict xfail; all four are fixed in pagesight's core, each pinned on a fixture page of its
# own too (test_edges, test_act_gestures, test_find, test_widgets).


def test_finding_a_row_whose_first_cell_is_a_link_is_named_by_that_link(
    page: Any, orbit: OrbitApp
) -> None:
    obs = _open(page, orbit, "/contacts")
    edit = next(el for el in obs.elements if el.id == _edit_link(obs, "Alice Chen"))
    assert edit.context == "Alice Chen"


def test_finding_a_card_dragged_between_alike_lists_says_which_column_it_went_into(
    page: Any, orbit: OrbitApp
) -> None:
    obs = _open(page, orbit, "/deals")
    card = one(obs, "Bluebird design system", "listitem")
    eff = page.act(card.id, "drag", to=one(obs, "Won", "region").id)
    moved = [ln.strip() for ln in eff.text().splitlines() if ln.strip().startswith("moved:")]
    assert len(moved) == 1 and "Won" in moved[0], eff.text()


def test_finding_a_link_drawn_as_a_button_is_found_as_the_button_people_call_it(
    page: Any, orbit: OrbitApp
) -> None:
    alice = _contact(orbit, "Alice Chen")
    page.navigate(f"{orbit.url}/contacts/{alice['id']}")
    best = page.find("the Edit button")[0]
    assert (best.element.role, best.element.name) == ("link", "Edit")


def test_finding_arrow_keys_in_an_open_listbox_are_seen_to_move_the_active_option(
    page: Any, orbit: OrbitApp
) -> None:
    alice = _contact(orbit, "Alice Chen")
    form = _open(page, orbit, f"/contacts/{alice['id']}/edit")
    team = one(form, "Team", "combobox")
    page.act(team.id, "click")  # open: Platform, the chosen team, is the active option
    eff = page.act(team.id, "press_key", key="ArrowDown")
    active = page.playwright.evaluate(
        "document.getElementById('team').ariaActiveDescendantElement.textContent"
    )
    assert active == "Design"  # the page did move it
    assert eff.kinds != ("no_op",), eff.text()
    assert "active" in one(eff.observation, "Design", "option").states


def test_in_chinese_no_page_shows_an_english_label(page: Any, orbit: OrbitApp) -> None:
    # Every label of the table, on every page: a label a template or a page script still
    # writes in English is caught here, not only the handful named above.
    from pagesight.demo.i18n import TEXT

    english = {
        en: key
        for key, (en, zh) in TEXT.items()
        if en != zh and "{" not in en and key not in ("switch_language", "chinese")
    }
    alice = _contact(orbit, "Alice Chen")["id"]
    page.playwright.context.add_cookies([{"name": "lang", "value": "zh", "url": orbit.url}])
    seen = {}
    for path in (
        "/contacts",
        "/contacts?q=nobody",
        f"/contacts/{alice}",
        f"/contacts/{alice}/edit",
        f"/contacts/{alice}/profile",
        "/messages",
        "/messages/new",
        "/deals",
        "/settings",
        "/no-such-page",
    ):
        obs = _open(page, orbit, path)
        assert page.playwright.evaluate("document.documentElement.lang") == "zh-CN", path
        seen[path] = obs.text() + "\n" + obs.title
    # What people typed (names, titles, cities, teams, deals, messages) is not translated.
    data = {
        str(v)
        for table in ("contacts", "deals", "messages", "notes")
        for row in orbit.query(f"SELECT * FROM {table}")
        for v in row.values()
        if isinstance(v, str)
    }
    data |= {"Platform", "Sales", "Design", "Data", "Security", "Marketing", "Support"}
    for path, shown in seen.items():
        text = shown
        for typed in sorted(data, key=len, reverse=True):
            text = text.replace(typed, "")
        left = [k for en, k in english.items() if re.search(rf"(?<!\w){re.escape(en)}(?!\w)", text)]
        assert left == [], f"{path} shows in English: {left}\n{text}"
