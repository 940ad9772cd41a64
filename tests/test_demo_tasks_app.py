"""What Orbit CRM gained for the bundled task suite (src/pagesight/eval/suites/orbit), over
HTTP with no browser: a new contact, a deal's owner on its own page and the board filtered by
owner, settings (language, e-mail notifications) kept in SQLite, the seeds the suite's checks
count on, a database from before these tables, and the suite's steps files, which must parse."""

from __future__ import annotations

import re
import sqlite3
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import pagesight
from pagesight.demo import db
from pagesight.demo.app import create_app
from pagesight.planners import parse

SUITE = Path(pagesight.__file__).parent / "eval" / "suites" / "orbit"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """A fresh, seeded Orbit database."""
    file = tmp_path / "orbit.sqlite3"
    db.prepare(file)
    return file


@pytest.fixture
def client(path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(path), follow_redirects=False) as http:
        yield http


def _one(path: Path, sql: str, *params: Any) -> Any:
    (row,) = db.query(path, sql, params)
    (value,) = row.values()
    return value


def _user(path: Path, name: str) -> int:
    user_id: int = _one(path, "SELECT id FROM users WHERE name = ?", name)
    return user_id


def _deal(path: Path, title: str) -> int:
    deal_id: int = _one(path, "SELECT id FROM deals WHERE title = ?", title)
    return deal_id


def _text(html: str) -> str:
    """The page's words, tags out, white space folded: what a person reads."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


NEW = {
    "name": "Maya Lopez",
    "company": "Initech",
    "email": "maya.lopez@initech.example",
    "location": "Toronto",
    "team": "Data",
}


def test_a_new_contact_is_created_from_its_form_and_greeted_on_its_page(
    client: TestClient, path: Path
) -> None:
    form = client.get("/contacts/new")
    assert form.status_code == 200
    assert 'role="combobox"' in form.text and 'action="/contacts"' in form.text
    assert "Create contact" in _text(form.text)
    assert 'href="/contacts/new"' in client.get("/contacts").text  # reached from the list

    created = client.post("/contacts", data=NEW)
    assert created.status_code == 303
    found = re.fullmatch(r"/contacts/(\d+)\?created=1", created.headers["location"])
    assert found, created.headers["location"]
    row = db.contact(path, int(found.group(1)))
    assert row is not None
    assert {k: getattr(row, k) for k in NEW} == NEW
    assert (row.job_title, row.newsletter) == ("", False)  # left empty: not made up
    page = client.get(created.headers["location"])
    assert "Created Maya Lopez." in _text(page.text)


def test_a_new_contact_the_server_rejects_says_why_keeps_what_was_typed_and_saves_nothing(
    client: TestClient, path: Path
) -> None:
    refused = client.post("/contacts", data={**NEW, "name": " ", "team": "Astronauts"})
    assert refused.status_code == 400
    text = _text(refused.text)
    assert "Enter a name." in text and "Choose a team from the list." in text
    assert 'value="maya.lopez@initech.example"' in refused.text  # kept for the retry
    assert _one(path, "SELECT count(*) FROM contacts") == 14


def test_a_deal_page_gives_the_deal_to_another_owner(client: TestClient, path: Path) -> None:
    bluebird = _deal(path, "Bluebird design system")
    page = client.get(f"/deals/{bluebird}")
    assert page.status_code == 200
    dan, erin = _user(path, "Dan Wu"), _user(path, "Erin Lee")
    assert f'<option value="{dan}" selected>Dan Wu</option>' in page.text
    assert "Owner Dan Wu" in _text(page.text)

    saved = client.post(f"/deals/{bluebird}", data={"owner": str(erin)})
    assert (saved.status_code, saved.headers["location"]) == (303, f"/deals/{bluebird}?saved=1")
    assert _one(path, "SELECT owner_id FROM deals WHERE id = ?", bluebird) == erin
    assert "Saved: the owner is now Erin Lee." in _text(client.get(saved.headers["location"]).text)
    # Only that deal changed hands.
    assert _one(path, "SELECT count(*) FROM deals WHERE owner_id = ?", dan) == 2


def test_a_deal_given_to_no_user_is_refused_and_an_unknown_deal_is_not_found(
    client: TestClient, path: Path
) -> None:
    kumo = _deal(path, "Kumo support plan")
    refused = client.post(f"/deals/{kumo}", data={"owner": "999"})
    assert refused.status_code == 400
    assert "Choose an owner from the list." in _text(refused.text)
    assert _one(path, "SELECT owner_id FROM deals WHERE id = ?", kumo) == _user(path, "Dan Wu")
    assert client.get("/deals/999").status_code == 404
    assert client.post("/deals/999", data={"owner": "1"}).status_code == 404


def test_the_board_filtered_by_owner_shows_only_their_deals_each_linked_to_its_page(
    client: TestClient, path: Path
) -> None:
    dan = _user(path, "Dan Wu")
    board = client.get(f"/deals?owner={dan}").text
    titles = re.findall(r'<a href="/deals/\d+">([^<]+)</a>', board)
    assert sorted(titles) == [
        "Bluebird design system",
        "Kumo support plan",
        "Quantix data pipeline",
    ]
    assert _text(board).count("Owner: Dan Wu") == 3
    assert f'<option value="{dan}" selected>Dan Wu</option>' in board
    everyone = client.get("/deals?owner=nobody").text  # not a user: every deal
    assert len(re.findall(r'<a href="/deals/\d+">', everyone)) == 8


def test_settings_keep_the_language_and_notifications_in_sqlite(
    client: TestClient, path: Path
) -> None:
    assert db.settings(path) == {"language": "en", "email_notifications": True}
    page = client.get("/settings").text
    assert re.search(r'id="email-notifications"[^>]* checked', page)

    # The settings form: an unchecked box is not sent, and means off.
    saved = client.post("/settings", data={"settings": "1", "lang": "zh"})
    assert (saved.status_code, saved.headers["location"]) == (303, "/settings?saved=1")
    assert db.settings(path) == {"language": "zh", "email_notifications": False}
    assert "lang=zh" in saved.headers["set-cookie"]  # the browser renders it at once
    shown = client.get("/settings?saved=1").text
    assert "设置已保存。" in shown and "电子邮件通知" in shown
    assert not re.search(r'id="email-notifications"[^>]* checked', shown)

    # The header's toggle says only the language: the notifications stay off.
    client.post("/settings", data={"lang": "en", "next": "/contacts"})
    assert db.settings(path) == {"language": "en", "email_notifications": False}


def test_a_browser_without_the_cookie_meets_the_saved_language(path: Path) -> None:
    db.save_settings(path, language="zh")
    with TestClient(create_app(path)) as fresh:
        assert '<html lang="zh-CN">' in fresh.get("/contacts").text
        fresh.cookies.set("lang", "en")  # its own choice wins
        assert '<html lang="en">' in fresh.get("/contacts").text


@pytest.mark.parametrize(
    ("page", "english", "chinese"),
    [
        ("/contacts/new", ["New contact", "Create contact"], ["新建联系人", "创建联系人"]),
        ("/deals/1", ["Owner", "Back to the deal board"], ["负责人", "返回商机看板"]),
        (
            "/deals",
            ["All owners", "Filter", "Owner: Erin Lee"],
            ["所有负责人", "筛选", "负责人：Erin Lee"],  # noqa: RUF001 - the Chinese colon
        ),
        ("/settings", ["Notifications", "Email notifications"], ["通知", "电子邮件通知"]),
    ],
)
def test_the_new_pages_speak_english_and_chinese(
    client: TestClient, page: str, english: list[str], chinese: list[str]
) -> None:
    text = _text(client.get(page).text)
    assert all(label in text for label in english), text
    client.cookies.set("lang", "zh")
    text = _text(client.get(page).text)
    assert all(label in text for label in chinese), text
    assert not any(label in text for label in english if label != "Owner: Erin Lee")


def test_the_seeds_hold_what_the_suite_s_tasks_start_from(client: TestClient, path: Path) -> None:
    assert _one(path, "SELECT count(*) FROM contacts") == 14
    assert _one(path, "SELECT count(*) FROM messages") == 4
    assert _one(path, "SELECT max(id) FROM messages") == 4  # a task's message has a higher id
    assert _one(path, "SELECT name FROM contacts WHERE company = 'Globex'") == "Yusuf Demir"
    assert _one(path, "SELECT count(*) FROM notes n JOIN contacts c ON c.id = n.contact_id "
                      "WHERE c.name = 'Carol Wu'") == 0  # fmt: skip
    assert _one(path, "SELECT stage FROM deals WHERE title LIKE 'Acme renewal%'") == "proposal"
    owned = db.query(
        path,
        "SELECT u.name, count(*) AS n FROM deals d JOIN users u ON u.id = d.owner_id "
        "GROUP BY u.name ORDER BY u.name",
    )
    assert owned == [
        {"name": "Dan Wu", "n": 3},
        {"name": "Erin Lee", "n": 2},
        {"name": "Priya Shah", "n": 3},
    ]
    export = client.get("/contacts/export.csv").text
    assert len(export.splitlines()) == 1 + 14  # the header, then one row a contact


def test_a_database_from_before_owners_and_settings_is_brought_up_to_date(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as connection:
        schema = db.SCHEMA.split("CREATE TABLE IF NOT EXISTS users")[0]
        connection.executescript(schema.replace(",\n    owner_id INTEGER REFERENCES users(id)", ""))
        connection.execute("INSERT INTO contacts (name) VALUES ('Ada')")
        connection.execute(
            "INSERT INTO deals (title, amount, stage) VALUES ('Old deal', 5, 'lead')"
        )
    db.prepare(old)
    assert db.deals(old)[0]["owner"] is None  # kept as it was: no owner made up
    assert db.settings(old) == {"language": "en", "email_notifications": True}
    assert [u["name"] for u in db.users(old)] == list(db.USERS)
    with TestClient(create_app(old)) as client:
        assert "Unassigned" in _text(client.get("/deals/1").text)
        assert _one(old, "SELECT count(*) FROM contacts") == 1  # not seeded over


def test_the_bundled_suite_names_steps_files_that_parse() -> None:
    suite = tomllib.loads((SUITE / "suite.toml").read_text(encoding="utf-8"))
    ids = [task["id"] for task in suite["tasks"]]
    assert len(ids) == len(set(ids)) == 10
    for task in suite["tasks"]:
        assert re.fullmatch(r"[a-z0-9-]+", task["id"]), task["id"]
        assert task["checks"], task["id"]
        parse((SUITE / task["steps"]).read_text(encoding="utf-8"))  # StepsError names a bad line
