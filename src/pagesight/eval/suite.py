"""A task suite: a TOML file of tasks, each with a start page, a goal, optionally a steps
file, and checks that say independently whether it was done.

::

    name = "orbit"

    [app]                        # optional: a server started fresh for every task
    builtin = "orbit"            # or: command = "python app.py --port {port} --db {workdir}/a.db"
                                 #     ready = "/health"

    [[tasks]]
    id = "alice-title"
    category = "form"
    start = "/contacts"          # a path on the app, or an http(s) URL
    goal = "Change Alice Chen's job title to …"   # or goal_from = "#query": read on the page
    steps = "steps/alice.steps"  # for the offline steps planner
    max_steps = 15

    [[tasks.checks]]             # every check must hold
    sql = "SELECT job_title FROM contacts WHERE name = 'Alice Chen'"
    equals = "Senior Software Engineer"

Relative paths (steps files, ``python`` checks, an app's command) are read against the suite
file's folder. :func:`load_suite` checks the whole file before anything runs and raises one
:class:`~pagesight.errors.SuiteError` naming the file, the task and the field.
"""

from __future__ import annotations

import ast
import hashlib
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from pagesight.agent.state import StopReason
from pagesight.errors import SetupError, SuiteError
from pagesight.guard.risk import Mode

BUNDLED = Path(__file__).resolve().parent / "suites"
"""The suites that ship with pagesight, one folder each with its ``suite.toml``."""

SUITE_FILE = "suite.toml"

STOP_REASONS: tuple[str, ...] = get_args(StopReason)
"""How a run may end, as ``stop_reason`` checks name it."""

CHECK_KINDS = (
    "sql",
    "url_matches",
    "page_contains",
    "answer_contains",
    "file_exists",
    "python",
    "stop_reason",
    "page_script",
)
"""The kinds of check; each check is exactly one of them."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Check(_Strict):
    """One fact the task's outcome must show. Exactly one of the kinds is given:

    * ``sql`` (+ ``equals``, optional ``db``): the rows an SQLite query returns, as lists
      (``[["Ada", "Paris"]]``), or a scalar meaning one row of one column; ``db`` is a path in
      the task's workdir (with ``builtin = "orbit"``: Orbit's database by default);
    * ``url_matches``: a regular expression searched in the final page's URL;
    * ``page_contains``: a text the final page shows (as the browser renders it, spacing
      aside), as words of its own: "14 items" is not in "114 items";
    * ``answer_contains``: a text in the run's answer (``done "…"``), words of its own too:
      "14" is not in "140";
    * ``file_exists``: a glob matched in the task's downloads folder;
    * ``python``: ``"file.py:function"``, called with the task's workdir, the app's base URL
      and the :class:`~pagesight.agent.state.RunResult`; it returns True, or a reason it failed;
    * ``stop_reason``: how the run must end (``done``, ``needs_person``, …);
    * ``page_script``: a JavaScript expression evaluated on the final page before its browser
      closes; it holds when its value is truthy, or, for an object with an ``ok`` key, when
      ``ok`` is (MiniWoB's reward: ``({ok: WOB_RAW_REWARD_GLOBAL >= 1, …})``); the value is
      reported in the check's reason either way.

    ``when_confirm`` makes a check apply only when the suite runs with that ``--confirm``
    mode (a task whose right outcome differs when a person must be asked).
    """

    sql: str | None = None
    db: str | None = None
    equals: Any = None
    url_matches: str | None = None
    page_contains: str | None = None
    answer_contains: str | None = None
    file_exists: str | None = None
    python: str | None = None
    stop_reason: str | None = None
    page_script: str | None = None
    when_confirm: Mode | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Check:
        given = [kind for kind in CHECK_KINDS if getattr(self, kind) is not None]
        if len(given) != 1:
            kinds = ", ".join(CHECK_KINDS)
            found = f"found {', '.join(given)}" if given else "found none"
            raise ValueError(f"a check is exactly one of {kinds}; {found}")
        if self.sql is not None and self.equals is None:
            raise ValueError("an sql check needs equals: the rows it must return")
        if self.sql is None and (self.db is not None or self.equals is not None):
            raise ValueError("db and equals belong to an sql check")
        if self.url_matches is not None:
            try:
                re.compile(self.url_matches)
            except re.error as exc:
                raise ValueError(f"url_matches is not a regular expression: {exc}") from exc
        if self.python is not None:
            file, sep, function = self.python.rpartition(":")
            if not sep or not file.endswith(".py") or not function.isidentifier():
                raise ValueError(f'python is "file.py:function", not {self.python!r}')
        if self.stop_reason is not None and self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"stop_reason is one of {', '.join(STOP_REASONS)}, not {self.stop_reason!r}"
            )
        if self.file_exists is not None:
            glob = Path(self.file_exists)
            if glob.is_absolute() or ".." in glob.parts:
                raise ValueError(
                    "file_exists is a glob in the task's downloads folder, not a path outside it"
                )
        for kind in CHECK_KINDS:
            if getattr(self, kind) == "":
                raise ValueError(f"{kind} is empty, so it could not fail")
        return self

    @property
    def kind(self) -> str:
        return next(kind for kind in CHECK_KINDS if getattr(self, kind) is not None)

    def describe(self) -> str:
        """The check in one line, as the report and the results show it (a query written
        over several lines of the suite on one)."""
        kind = self.kind
        if kind == "sql":
            assert self.sql is not None
            return f"sql {' '.join(self.sql.split())} = {self.equals!r}"
        return f"{kind} {getattr(self, kind)!r}"


class App(_Strict):
    """The server a task runs against, started fresh for every task: Orbit CRM
    (``builtin = "orbit"``), or ``command`` with ``{port}`` and ``{workdir}`` filled in, run
    in the suite's folder, ready once ``ready`` answers."""

    builtin: Literal["orbit", "miniwob"] | None = None
    command: str | None = None
    ready: str = "/"
    ready_timeout: float = Field(default=30.0, gt=0)

    @model_validator(mode="after")
    def _one_way(self) -> App:
        if (self.builtin is None) == (self.command is None):
            raise ValueError(
                'an app is either builtin ("orbit", "miniwob") or a command, one of the two'
            )
        if self.command is not None and "{port}" not in self.command:
            raise ValueError("the command must listen on {port}, the port the task gives it")
        if not self.ready.startswith("/"):
            raise ValueError(f"ready is a path on the app, such as /health, not {self.ready!r}")
        return self


class Task(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=80)
    category: str = "task"
    start: str
    goal: str | None = Field(min_length=1)
    """What the planner is asked to do; None only with ``goal_from``."""
    goal_from: str | None = Field(default=None, min_length=1)
    """Instead of ``goal``: a CSS selector on the start page whose text is the goal (MiniWoB's
    ``#query``); the start page is loaded once to read it (textContent, spacing collapsed,
    as MiniWoB's ``core.getUtterance()``), then the run starts on it afresh."""
    steps: str | None = None
    max_steps: int | None = Field(default=None, ge=1)
    allow: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]] = Field(
        default_factory=list
    )
    """Risky steps a person allows in advance, by a word of the step (``["send"]``): with
    ``--confirm risky`` or ``all`` the eval says yes to those and no to any other; with none
    given, a risky step stops the run for a person (``needs_person``), as nobody is there."""
    checks: list[Check] = Field(min_length=1)

    @field_validator("start")
    @classmethod
    def _start(cls, value: str) -> str:
        if not (value.startswith("/") or re.match(r"^https?://", value)):
            raise ValueError(
                f"start is a path on the app (/login) or an http(s) URL, not {value!r}"
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _goal_read_from_the_page(cls, data: Any) -> Any:
        # A task with goal_from has no goal of its own; one with neither misses its goal.
        if isinstance(data, dict) and "goal_from" in data and "goal" not in data:
            return {**data, "goal": None}
        return data

    @model_validator(mode="after")
    def _one_goal(self) -> Task:
        if self.goal is not None and self.goal_from is not None:
            raise ValueError(
                "a task has a goal, or goal_from (a selector to read it from), not both"
            )
        if self.goal is None and self.goal_from is None:
            raise ValueError("a task needs a goal, or goal_from (a selector to read it from)")
        return self


class _SuiteFile(_Strict):
    name: str | None = None
    description: str = ""
    app: App | None = None
    tasks: list[Task] = Field(min_length=1)


@dataclass(frozen=True)
class Suite:
    """A suite as loaded: its tasks, its app, and where it came from."""

    name: str
    description: str
    app: App | None
    tasks: tuple[Task, ...]
    path: Path
    """The suite file."""
    sha256: str
    """Of the suite file's bytes."""

    @property
    def folder(self) -> Path:
        """What relative paths in the suite are read against."""
        return self.path.parent

    def task(self, task_id: str) -> Task:
        return next(task for task in self.tasks if task.id == task_id)

    def select(self, ids: Sequence[str]) -> tuple[Task, ...]:
        """The tasks named, in the suite's order; SuiteError for an id it does not have."""
        known = {task.id for task in self.tasks}
        unknown = [task_id for task_id in ids if task_id not in known]
        if unknown:
            raise SuiteError(
                f"{self.path}: no task {', '.join(map(repr, unknown))}; "
                f"the suite has {', '.join(task.id for task in self.tasks)}"
            )
        return tuple(task for task in self.tasks if task.id in ids)

    def steps_path(self, task: Task) -> Path | None:
        return None if task.steps is None else self.folder / task.steps


def bundled_names() -> list[str]:
    return sorted(p.parent.name for p in BUNDLED.glob(f"*/{SUITE_FILE}"))


def find_suite(given: str) -> Path:
    """A suite file: a path to one (or to a folder holding ``suite.toml``), else the name
    of a bundled suite. SuiteError when it is neither."""
    path = Path(given).expanduser()
    if path.is_dir():
        path = path / SUITE_FILE
    if path.is_file():
        return path.resolve()
    bundled = BUNDLED / given / SUITE_FILE
    if "/" not in given and bundled.is_file():
        return bundled
    names = ", ".join(bundled_names()) or "none"
    raise SuiteError(f"{given}: no such suite file, and no bundled suite by that name ({names})")


def load_suite(given: str | Path) -> Suite:
    """Read and check a suite (a path, or a bundled suite's name). Every task's steps file and
    ``python`` check file must exist; SuiteError, naming the file, task and field, if not."""
    path = find_suite(str(given))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SuiteError(f"{path}: cannot be read: {exc.strerror}") from exc
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"{path}: not valid TOML: {exc}") from exc
    try:
        parsed = _SuiteFile.model_validate(raw)
    except ValidationError as exc:
        raise SuiteError(f"{path}: {_where(exc, raw)}") from None
    suite = Suite(
        name=parsed.name or (path.parent.name if path.name == SUITE_FILE else path.stem),
        description=parsed.description,
        app=parsed.app,
        tasks=tuple(parsed.tasks),
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
    )
    _check_tasks(suite)
    if _builtin(suite) == "miniwob":
        from pagesight.eval.miniwob import html_folder

        try:
            html_folder()
        except SetupError as exc:
            raise SetupError(f"{path}: {exc}") from None
    return suite


def _check_tasks(suite: Suite) -> None:
    seen: set[str] = set()
    for task in suite.tasks:
        where = f"{suite.path}: task {task.id!r}"
        if task.id in seen:
            raise SuiteError(f"{where}: id: another task has this id; ids are unique")
        seen.add(task.id)
        if task.start.startswith("/") and suite.app is None:
            raise SuiteError(
                f"{where}: start: {task.start!r} is a path, but the suite has no [app] to "
                "serve it; give an http(s) URL or add an [app]"
            )
        steps = suite.steps_path(task)
        if steps is not None and not steps.is_file():
            raise SuiteError(f"{where}: steps: no file {str(steps)!r}")
        for number, check in enumerate(task.checks):
            if check.python is not None:
                file = suite.folder / check.python.rpartition(":")[0]
                if not file.is_file():
                    raise SuiteError(f"{where}: checks[{number}].python: no file {str(file)!r}")
                problem = _no_function(file, check.python.rpartition(":")[2])
                if problem is not None:
                    raise SuiteError(f"{where}: checks[{number}].python: {problem}")
            if check.sql is not None and check.db is None and _builtin(suite) != "orbit":
                raise SuiteError(
                    f"{where}: checks[{number}].db: an sql check names its database (a path "
                    "in the task's workdir) unless the app is Orbit"
                )


def _no_function(file: Path, name: str) -> str | None:
    """Why ``file`` has no ``name`` to call (it does not parse, or defines no such name at
    its top level), read without running it; None when it has one."""
    try:
        tree = ast.parse(file.read_bytes(), filename=str(file))
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        at = f" at line {line}" if line else ""
        return f"{file} is not Python ({getattr(exc, 'msg', exc)}{at})"
    except OSError as exc:
        return f"{file} cannot be read: {exc.strerror}"
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return None if name in names else f"{file} defines no function {name!r}"


def _builtin(suite: Suite) -> str | None:
    return suite.app.builtin if suite.app is not None else None


def _where(exc: ValidationError, raw: dict[str, Any]) -> str:
    """The first error as ``task 'id': checks[0].equals: what is wrong``."""
    error = exc.errors()[0]
    loc = list(error["loc"])
    prefix = ""
    if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        tasks = raw.get("tasks")
        task = tasks[loc[1]] if isinstance(tasks, list) and loc[1] < len(tasks) else None
        name = task.get("id") if isinstance(task, dict) else None
        prefix = f"task {name!r}: " if isinstance(name, str) else f"task number {loc[1] + 1}: "
        loc = loc[2:]
    field = ""
    for part in loc:
        if isinstance(part, int):
            field += f"[{part}]"
        elif not str(part).startswith("function-"):
            field += f".{part}" if field else str(part)
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "not a field this accepts (a typo?)"
    elif error["type"] == "missing":
        message = "missing"
    return f"{prefix}{field or ('the task' if prefix else 'the file')}: {message}"
