"""Whether a task was done, judged from its outcome (the app's database, the final page as
the browser renders it, the downloads, the answer), never from what the planner claims."""

from __future__ import annotations

import importlib.util
import json
import re
import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pagesight.agent.state import RunResult
from pagesight.errors import SuiteError
from pagesight.eval.suite import Check
from pagesight.guard.risk import Mode


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the checks read: gathered once the run ends, before its browser closes."""

    result: RunResult
    final_url: str
    page_text: str
    """The final page's text as the browser renders it (``innerText``)."""
    workdir: Path
    downloads: Path
    base_url: str
    db: Path | None
    """The builtin app's database, for ``sql`` checks that name none."""
    confirm: Mode
    scripts: Mapping[str, ScriptValue] = field(default_factory=dict)
    """Each ``page_script`` check's expression, evaluated on the final page."""


@dataclass(frozen=True)
class ScriptValue:
    """What a ``page_script`` expression gave on the final page: its value (as JSON), or the
    error it raised (or why it could not be evaluated)."""

    value: Any = None
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class CheckResult:
    check: str
    ok: bool
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"check": self.check, "ok": self.ok, "reason": self.reason}


def applies(check: Check, confirm: Mode) -> bool:
    return check.when_confirm is None or check.when_confirm == confirm


def judge(checks: list[Check], outcome: Outcome, *, folder: Path) -> list[CheckResult]:
    """Every check that applies in the run's confirm mode, each held or not with a reason."""
    results = []
    for check in checks:
        if not applies(check, outcome.confirm):
            continue
        if check.page_script is not None:
            ok, said = _page_script(outcome.scripts.get(check.page_script))
            results.append(CheckResult(check=check.describe(), ok=ok, reason=said))
            continue
        try:
            reason = _fails(check, outcome, folder)
        except SuiteError:
            raise
        except Exception as exc:  # noqa: BLE001 - a check that cannot be made does not hold
            reason = f"{type(exc).__name__}: {exc}"
        results.append(CheckResult(check=check.describe(), ok=reason is None, reason=reason or ""))
    return results


def _page_script(got: ScriptValue | None) -> tuple[bool, str]:
    """Held or not, and what the expression gave, said whether it held or not (a reward)."""
    if got is None:
        return False, "not evaluated: the run ended without a page"
    if got.error is not None:
        return False, f"the expression failed: {got.error}"
    value = got.value
    ok = bool(value.get("ok")) if isinstance(value, dict) and "ok" in value else bool(value)
    return ok, f"it gave {json.dumps(value, ensure_ascii=False, sort_keys=True)}"


def _fails(check: Check, outcome: Outcome, folder: Path) -> str | None:
    """None when the check holds, else what was found instead."""
    kind = check.kind
    if kind == "sql":
        return _sql(check, outcome)
    if kind == "url_matches":
        assert check.url_matches is not None
        found = re.search(check.url_matches, outcome.final_url)
        return None if found else f"the final URL is {outcome.final_url}"
    if kind == "page_contains":
        assert check.page_contains is not None
        if _holds(check.page_contains, outcome.page_text):
            return None
        return f"the final page ({outcome.final_url}) does not show it"
    if kind == "answer_contains":
        assert check.answer_contains is not None
        answer = outcome.result.answer
        if answer is not None and _holds(check.answer_contains, answer):
            return None
        return "the run gave no answer" if answer is None else f"the answer was {answer!r}"
    if kind == "file_exists":
        assert check.file_exists is not None
        if any(p.is_file() for p in outcome.downloads.glob(check.file_exists)):
            return None
        there = (
            sorted(p.name for p in outcome.downloads.glob("*"))
            if outcome.downloads.is_dir()
            else []
        )
        return f"downloads hold {', '.join(there)}" if there else "nothing was downloaded"
    if kind == "stop_reason":
        got = outcome.result.stop_reason
        return None if got == check.stop_reason else f"the run stopped with {got}"
    assert check.python is not None
    return _python(check.python, outcome, folder)


def _spaced(text: str) -> str:
    return " ".join(text.split())


def _holds(wanted: str, text: str) -> bool:
    """Whether ``text`` shows ``wanted``, spacing aside, as words of its own: where
    ``wanted`` begins or ends with a letter or digit, the text has none right beside it, so
    "14" is not in "140", "2014" or "1.14", nor "Saved" in "Unsaved" ("14 行" and "14."
    hold 14)."""
    wanted, text = _spaced(wanted), _spaced(text)
    first, last = wanted[:1], wanted[-1:]
    before = r"(?<![A-Za-z0-9])" if first.isascii() and first.isalnum() else ""
    before += r"(?<![0-9][.,])" if first.isascii() and first.isdigit() else ""
    after = r"(?![A-Za-z0-9])" if last.isascii() and last.isalnum() else ""
    after += r"(?![.,][0-9])" if last.isascii() and last.isdigit() else ""
    return re.search(before + re.escape(wanted) + after, text) is not None


def _sql(check: Check, outcome: Outcome) -> str | None:
    assert check.sql is not None
    path = outcome.workdir / check.db if check.db is not None else outcome.db
    if path is None or not path.is_file():
        return f"no database at {path}"
    # Read-only: a check looks, it never changes what the next check reads.
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
        rows = [list(row) for row in db.execute(check.sql).fetchall()]
    want = check.equals
    if isinstance(want, list):
        expected = [list(row) if isinstance(row, list) else [row] for row in want]
    else:
        expected = [[want]]
    # What was expected is in the check's own line already: the reason says what was found.
    return None if rows == expected else f"the query returned {rows!r}"


def _python(spec: str, outcome: Outcome, folder: Path) -> str | None:
    file, _, name = spec.rpartition(":")
    path = (folder / file).resolve()
    module_name = f"pagesight_check_{abs(hash(path)):x}"
    module = sys.modules.get(module_name)
    if module is None:
        loader = importlib.util.spec_from_file_location(module_name, path)
        if loader is None or loader.loader is None:
            raise SuiteError(f"{path}: cannot be imported")
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        loader.loader.exec_module(module)
    function = getattr(module, name, None)
    if not callable(function):
        raise SuiteError(f"{path}: has no function {name!r}")
    said = function(outcome.workdir, outcome.base_url, outcome.result)
    if said is True:
        return None
    if isinstance(said, str) and said:
        return said
    return f"{name} returned {said!r}"
