"""Orbit CRM's state: one SQLite file, opened afresh for each request (stdlib ``sqlite3``).

Every function takes the database path and opens its own short connection, so the server's
threads and a test reading the file never share a connection; a write is committed before the
function returns, so what a test reads is what a person saved.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from pagesight.errors import InvalidOption

LOCATIONS = (
    "New York",
    "London",
    "Tokyo",
    "Berlin",
    "San Francisco",
    "Paris",
    "Shanghai",
    "Toronto",
)
TEAMS = ("Platform", "Design", "Sales", "Marketing", "Support", "Data", "Security")
STAGES = ("lead", "qualified", "proposal", "won", "lost")
USERS = ("Dan Wu", "Erin Lee", "Priya Shah")
"""Orbit's own users, the sales team a deal is owned by (not contacts: they use the CRM)."""

# The fields a person edits on the contact form, in the order the form shows them.
EDITABLE = (
    "name",
    "job_title",
    "company",
    "email",
    "phone",
    "location",
    "team",
    "newsletter",
    "follow_up",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS contacts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    job_title TEXT NOT NULL DEFAULT '',
    company TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    phone TEXT NOT NULL DEFAULT '',
    location TEXT NOT NULL DEFAULT '',
    team TEXT NOT NULL DEFAULT '',
    newsletter INTEGER NOT NULL DEFAULT 0,
    follow_up TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    contact_id INTEGER NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    html TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS deals (
    id INTEGER PRIMARY KEY,
    contact_id INTEGER REFERENCES contacts(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    amount INTEGER NOT NULL,
    stage TEXT NOT NULL CHECK (stage IN ('lead', 'qualified', 'proposal', 'won', 'lost')),
    position INTEGER NOT NULL DEFAULT 0,
    owner_id INTEGER REFERENCES users(id)
);
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'zh')),
    email_notifications INTEGER NOT NULL DEFAULT 1
);
"""
TABLES = frozenset({"contacts", "messages", "notes", "deals"})
"""The tables that make a file Orbit's (``users`` and ``settings`` came later: a database
made before them is Orbit's still, and gains them when opened)."""

# fmt: off
# (name, job title, company, email, phone, location, team, newsletter, follow-up)
SEED_CONTACTS: tuple[tuple[str, str, str, str, str, str, str, int, str], ...] = (
    ("Alice Chen", "Software Engineer", "Northwind Labs", "alice.chen@northwind.example",
     "+44 20 7946 0018", "London", "Platform", 1, "2026-12-15"),
    ("Bob Martin", "Product Manager", "Acme Corp", "bob.martin@acme.example",
     "+1 212 555 0142", "New York", "Sales", 0, ""),
    ("Carla Diaz", "UX Designer", "Bluebird Studio", "carla@bluebird.example",
     "+49 30 901820", "Berlin", "Design", 1, "2027-01-08"),
    ("Dev Patel", "Data Scientist", "Quantix", "dev.patel@quantix.example",
     "+1 415 555 0199", "San Francisco", "Data", 0, ""),
    ("Emma Schulz", "Account Executive", "Helios GmbH", "e.schulz@helios.example",
     "+49 30 555 0101", "Berlin", "Sales", 1, "2026-12-03"),
    ("Farah Khan", "Security Analyst", "Shieldline", "farah.khan@shieldline.example",
     "+44 161 555 0123", "London", "Security", 0, ""),
    ("Haruto Sato", "Engineering Manager", "Kumo Systems", "h.sato@kumo.example",
     "+81 3 5555 0134", "Tokyo", "Platform", 1, ""),
    ("Isabel Rossi", "Marketing Director", "Verde Foods", "isabel@verde.example",
     "+1 646 555 0177", "New York", "Marketing", 1, "2026-12-20"),
    ("Jamal Wright", "Solutions Architect", "Acme Corp", "jamal.wright@acme.example",
     "+1 415 555 0110", "San Francisco", "Platform", 0, ""),
    ("Kenji Mori", "QA Engineer", "Kumo Systems", "k.mori@kumo.example",
     "+81 3 5555 0190", "Tokyo", "Support", 0, ""),
    ("Lena Novak", "Software Engineer", "Northwind Labs", "lena.novak@northwind.example",
     "+49 89 555 0166", "Berlin", "Platform", 1, ""),
    ("Wei Chen", "Operations Lead", "Jade River Trading", "wei.chen@jaderiver.example",
     "+86 21 5555 0123", "Shanghai", "Support", 0, "2027-02-01"),
    # Added for the bundled task suite (src/pagesight/eval/suites/orbit): a contact with no
    # notes yet (13) and the one contact at Globex (14), last so the ids above stay.
    ("Carol Wu", "Head of Operations", "Pinecrest Health", "carol.wu@pinecrest.example",
     "+1 416 555 0148", "Toronto", "Support", 0, ""),
    ("Yusuf Demir", "Procurement Manager", "Globex", "y.demir@globex.example",
     "+33 1 55 55 01 62", "Paris", "Sales", 1, ""),
)
# (contact number in SEED_CONTACTS from 1, direction, subject, body, sent at)
SEED_MESSAGES = (
    (1, "in", "Design review on Thursday",
     "Hi! Could we move the design review to Thursday at 3pm? Alice", "2026-11-28 09:12:00"),
    (2, "in", "Renewal quote", "Bob here: please send the renewal quote for 40 seats.",
     "2026-11-29 14:40:00"),
    (1, "out", "Re: Design review on Thursday", "Thursday at 3pm works. See you then.",
     "2026-11-28 10:03:00"),
    (8, "in", "Campaign assets", "The spring campaign assets are in the shared folder.",
     "2026-11-30 08:25:00"),
)
SEED_NOTES = (
    (1, "<p>Met at <b>PyCon UK</b>. Interested in the platform tier.</p>",
     "2026-11-20 16:00:00"),
    (5, "<p>Prefers calls in the <i>morning</i>.</p>", "2026-11-22 10:30:00"),
)
# (contact number, title, amount in dollars, stage, owner in USERS). The Acme renewal waits
# in Proposal to be won, and Dan Wu owns three deals to hand over: two tasks of the suite.
SEED_DEALS = (
    (1, "Northwind platform licence", 48000, "proposal", "Erin Lee"),
    (2, "Acme renewal (40 seats)", 32000, "proposal", "Priya Shah"),
    (3, "Bluebird design system", 15000, "lead", "Dan Wu"),
    (4, "Quantix data pipeline", 27000, "lead", "Dan Wu"),
    (5, "Helios onboarding", 9000, "won", "Erin Lee"),
    (7, "Kumo support plan", 12000, "qualified", "Dan Wu"),
    (8, "Verde spring campaign", 21000, "proposal", "Priya Shah"),
    (9, "Acme architecture review", 6000, "lost", "Priya Shah"),
)
# fmt: on


@dataclass(frozen=True, kw_only=True)
class Contact:
    id: int
    name: str
    job_title: str
    company: str
    email: str
    phone: str
    location: str
    team: str
    newsletter: bool
    follow_up: str

    def as_dict(self) -> dict[str, Any]:
        return {field: getattr(self, field) for field in ("id", *EDITABLE)}


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection that commits on success, rolls back on error, and is always closed."""
    connection = sqlite3.connect(path, timeout=5)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA foreign_keys = ON")
    try:
        with connection:
            yield connection
    finally:
        connection.close()


def prepare(path: Path) -> None:
    """Create the tables and seed them when the database is new; keep an existing Orbit
    database as it is. Raises InvalidOption("db") for a path that cannot be one."""
    if path.is_dir():
        raise InvalidOption("db", f"{str(path)!r} is a folder; give a file path for the database")
    if not path.parent.is_dir():
        raise InvalidOption(
            "db", f"no folder {str(path.parent)!r} to create {path.name} in; create it first"
        )
    try:
        with connect(path) as db:
            found = {
                row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if found and not found >= TABLES:
                listed = ", ".join(sorted(found))
                raise InvalidOption(
                    "db",
                    f"{str(path)!r} holds another application's tables ({listed}), not Orbit "
                    "CRM's; give a new path or leave --db out for a fresh database",
                )
            _migrate(db, found)
            db.executescript(SCHEMA)
            # Orbit's users and its one row of settings, in a new database and in one made
            # before they were (whose data is kept as it is).
            db.executemany("INSERT OR IGNORE INTO users (name) VALUES (?)", [(u,) for u in USERS])
            db.execute("INSERT OR IGNORE INTO settings (id) VALUES (1)")
            if not db.execute("SELECT 1 FROM contacts LIMIT 1").fetchone():
                _seed(db)
    except sqlite3.DatabaseError as exc:  # not a database, read-only, locked, …
        raise InvalidOption(
            "db", f"{str(path)!r} cannot be used as an SQLite database: {exc}"
        ) from exc


def _migrate(db: sqlite3.Connection, found: set[str]) -> None:
    """Bring a database made by an older Orbit up to the schema: its deals gain an owner
    (none), so its pages and a task's checks read the same columns as a new one's."""
    if "deals" in found:
        columns = {row[1] for row in db.execute("PRAGMA table_info(deals)")}
        if "owner_id" not in columns:
            db.execute("ALTER TABLE deals ADD COLUMN owner_id INTEGER REFERENCES users(id)")


def _seed(db: sqlite3.Connection) -> None:
    db.executemany(
        "INSERT INTO contacts (name, job_title, company, email, phone, location, team, "
        "newsletter, follow_up) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        SEED_CONTACTS,
    )
    db.executemany(
        "INSERT INTO messages (contact_id, direction, subject, body, sent_at) "
        "VALUES (?, ?, ?, ?, ?)",
        SEED_MESSAGES,
    )
    db.executemany("INSERT INTO notes (contact_id, html, created_at) VALUES (?, ?, ?)", SEED_NOTES)
    db.executemany(
        "INSERT INTO deals (contact_id, title, amount, stage, position, owner_id) "
        "VALUES (?, ?, ?, ?, ?, (SELECT id FROM users WHERE name = ?))",
        [
            (contact, title, amount, stage, number, owner)
            for number, (contact, title, amount, stage, owner) in enumerate(SEED_DEALS)
        ],
    )


def query(
    path: Path, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()
) -> list[dict[str, Any]]:
    """Run one statement; the rows as dicts (an empty list for a write)."""
    with connect(path) as db:
        return [dict(row) for row in db.execute(sql, params).fetchall()]


def _contact(row: sqlite3.Row) -> Contact:
    return Contact(
        id=row["id"],
        name=row["name"],
        job_title=row["job_title"],
        company=row["company"],
        email=row["email"],
        phone=row["phone"],
        location=row["location"],
        team=row["team"],
        newsletter=bool(row["newsletter"]),
        follow_up=row["follow_up"],
    )


def contacts(path: Path, search: str = "") -> list[Contact]:
    """Contacts by name; ``search`` matches words of the name, title, company, location or team."""
    sql = "SELECT * FROM contacts"
    params: list[str] = []
    words = search.split()
    if words:
        clauses = []
        for word in words:
            clauses.append(
                "(name || ' ' || job_title || ' ' || company || ' ' || location || ' ' || team)"
                " LIKE ? ESCAPE '\\'"
            )
            escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{escaped}%")
        sql += " WHERE " + " AND ".join(clauses)
    with connect(path) as db:
        return [_contact(row) for row in db.execute(sql + " ORDER BY name, id", params)]


def contact(path: Path, contact_id: int) -> Contact | None:
    with connect(path) as db:
        row = db.execute("SELECT * FROM contacts WHERE id = ?", (contact_id,)).fetchone()
    return None if row is None else _contact(row)


def update_contact(path: Path, contact_id: int, values: Mapping[str, Any]) -> list[str]:
    """Save the edited fields; returns the names of those whose value changed."""
    with connect(path) as db:
        row = db.execute("SELECT * FROM contacts WHERE id = ?", (contact_id,)).fetchone()
        if row is None:
            return []
        before = _contact(row).as_dict()
        changed = [field for field in EDITABLE if before[field] != values[field]]
        if changed:
            assignments = ", ".join(f"{field} = ?" for field in changed)
            db.execute(
                f"UPDATE contacts SET {assignments}, updated_at = datetime('now') WHERE id = ?",
                [int(values[f]) if f == "newsletter" else values[f] for f in changed]
                + [contact_id],
            )
    return changed


def create_contact(path: Path, values: Mapping[str, Any]) -> int:
    """Add a contact with the form's ``EDITABLE`` values; returns its id."""
    with connect(path) as db:
        columns, marks = ", ".join(EDITABLE), ", ".join("?" * len(EDITABLE))
        cursor = db.execute(
            f"INSERT INTO contacts ({columns}) VALUES ({marks})",
            [int(values[f]) if f == "newsletter" else values[f] for f in EDITABLE],
        )
        return int(cursor.lastrowid or 0)


def delete_contact(path: Path, contact_id: int) -> bool:
    with connect(path) as db:
        return db.execute("DELETE FROM contacts WHERE id = ?", (contact_id,)).rowcount > 0


def contacts_csv(path: Path) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["id", *EDITABLE])
    for person in contacts(path):
        row = person.as_dict()
        row["newsletter"] = "yes" if person.newsletter else "no"
        writer.writerow([row[field] for field in ("id", *EDITABLE)])
    return out.getvalue()


def messages(path: Path) -> list[dict[str, Any]]:
    """Every message, newest first, with its contact's name."""
    return query(
        path,
        "SELECT m.id, m.contact_id, c.name AS contact, m.direction, m.subject, m.body, m.sent_at "
        "FROM messages m JOIN contacts c ON c.id = m.contact_id ORDER BY m.sent_at DESC, m.id DESC",
    )


def send_message(path: Path, contact_id: int, subject: str, body: str) -> int:
    with connect(path) as db:
        cursor = db.execute(
            "INSERT INTO messages (contact_id, direction, subject, body) VALUES (?, 'out', ?, ?)",
            (contact_id, subject, body),
        )
        return int(cursor.lastrowid or 0)


def notes(path: Path, contact_id: int) -> list[dict[str, Any]]:
    return query(
        path,
        "SELECT id, html, created_at FROM notes WHERE contact_id = ? "
        "ORDER BY created_at DESC, id DESC",
        (contact_id,),
    )


def add_note(path: Path, contact_id: int, html: str) -> dict[str, Any]:
    with connect(path) as db:
        cursor = db.execute(
            "INSERT INTO notes (contact_id, html) VALUES (?, ?)", (contact_id, html)
        )
        row = db.execute(
            "SELECT id, html, created_at FROM notes WHERE id = ?", (cursor.lastrowid,)
        ).fetchone()
    return dict(row)


_DEALS = (
    "SELECT d.id, d.title, d.amount, d.stage, d.contact_id, c.name AS contact, "
    "d.owner_id, u.name AS owner FROM deals d "
    "LEFT JOIN contacts c ON c.id = d.contact_id LEFT JOIN users u ON u.id = d.owner_id"
)


def deals(path: Path, owner_id: int | None = None) -> list[dict[str, Any]]:
    """Every deal in board order (only ``owner_id``'s when given), with its contact's and
    owner's names."""
    if owner_id is None:
        return query(path, f"{_DEALS} ORDER BY d.position, d.id")
    return query(path, f"{_DEALS} WHERE d.owner_id = ? ORDER BY d.position, d.id", (owner_id,))


def deal(path: Path, deal_id: int) -> dict[str, Any] | None:
    found = query(path, f"{_DEALS} WHERE d.id = ?", (deal_id,))
    return found[0] if found else None


def users(path: Path) -> list[dict[str, Any]]:
    """Orbit's users by name: who may own a deal."""
    return query(path, "SELECT id, name FROM users ORDER BY name, id")


def set_deal_owner(path: Path, deal_id: int, owner_id: int) -> bool:
    """Give the deal to user ``owner_id``; False when there is no such deal."""
    with connect(path) as db:
        return (
            db.execute("UPDATE deals SET owner_id = ? WHERE id = ?", (owner_id, deal_id)).rowcount
            > 0
        )


def move_deal(path: Path, deal_id: int, stage: str) -> dict[str, Any] | None:
    """Put the deal last in ``stage``; returns the deal, or None when there is no such deal."""
    with connect(path) as db:
        last = db.execute("SELECT COALESCE(MAX(position), -1) FROM deals").fetchone()[0]
        moved = db.execute(
            "UPDATE deals SET stage = ?, position = ? WHERE id = ?", (stage, last + 1, deal_id)
        ).rowcount
    if not moved:
        return None
    return query(path, "SELECT id, title, amount, stage FROM deals WHERE id = ?", (deal_id,))[0]


def settings(path: Path) -> dict[str, Any]:
    """The app's settings: ``language`` ("en" or "zh") and ``email_notifications`` (bool)."""
    (row,) = query(path, "SELECT language, email_notifications FROM settings WHERE id = 1")
    return {"language": row["language"], "email_notifications": bool(row["email_notifications"])}


def save_settings(
    path: Path, *, language: str | None = None, email_notifications: bool | None = None
) -> None:
    """Save the settings given (None: keep that one as it is)."""
    with connect(path) as db:
        if language is not None:
            db.execute("UPDATE settings SET language = ? WHERE id = 1", (language,))
        if email_notifications is not None:
            db.execute(
                "UPDATE settings SET email_notifications = ? WHERE id = 1",
                (int(email_notifications),),
            )


def valid_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10
