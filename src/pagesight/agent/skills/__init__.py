"""Skills: instructions a model loads when it needs them.

A skill is a folder holding a ``SKILL.md``: front matter with ``name`` and ``description``,
then a body in Markdown. The names and descriptions of every skill are always in the system
prompt (:meth:`Skills.catalog`); a body costs tokens only once the model asks for it with the
``load_skill`` tool. The skills shipped with pagesight live beside this file; a user adds
folders of their own (``Agent(..., skills=[Path("my_skills")])``).

The front matter is read by a strict parser of its own rather than YAML (pyyaml is not a
dependency of pagesight): between two ``---`` lines, one ``key: value`` a line, the value
optionally in quotes. ``name`` and ``description`` are required; other one-line keys are
allowed and ignored; anything YAML would read another way (an indented line, a list, a
``|`` or ``>`` block) is refused with the file and line, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pagesight.errors import InvalidOption

BUILT_IN = Path(__file__).parent
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$")


@dataclass(frozen=True, kw_only=True)
class Skill:
    name: str
    description: str
    body: str
    path: Path


def parse_skill(text: str, path: Path) -> Skill:
    """The skill in ``text`` (the contents of ``path``); ``InvalidOption`` naming the line
    when its front matter is not as described in this module."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise InvalidOption("skills", f"{path}:1: a SKILL.md starts with a '---' line")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise InvalidOption("skills", f"{path}: the front matter has no closing '---'") from None
    keys: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        value = match.group(2).strip() if match else ""
        if match is None or value[:1] in ("|", ">", "[", "{", "&", "*") or not value:
            raise InvalidOption(
                "skills",
                f"{path}:{number}: expected one `key: value` a line, found {line.strip()!r}",
            )
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        keys[match.group(1)] = value
    missing = [k for k in ("name", "description") if k not in keys]
    if missing:
        raise InvalidOption("skills", f"{path}: the front matter lacks {' and '.join(missing)}")
    body = "\n".join(lines[end + 1 :]).strip()
    return Skill(name=keys["name"], description=keys["description"], body=body, path=path)


class Skills:
    """The skills found in some folders, by name."""

    def __init__(self, skills: Iterable[Skill]) -> None:
        self._skills: dict[str, Skill] = {}
        for skill in skills:
            if skill.name in self._skills:
                other = self._skills[skill.name].path
                raise InvalidOption(
                    "skills", f"two skills are named {skill.name!r}: {other} and {skill.path}"
                )
            self._skills[skill.name] = skill

    @classmethod
    def load(cls, folders: Iterable[str | Path] = ()) -> Skills:
        """pagesight's own skills, plus every ``*/SKILL.md`` in ``folders``."""
        found = []
        for folder in (BUILT_IN, *map(Path, folders)):
            if not folder.is_dir():
                raise InvalidOption("skills", f"the skills folder {folder} does not exist")
            for path in sorted(folder.glob("*/SKILL.md")):
                # utf-8-sig: a file saved with a byte order mark (Windows editors) reads
                # the same as one without.
                found.append(parse_skill(path.read_text(encoding="utf-8-sig"), path))
        return cls(found)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self._skills.values())

    def __len__(self) -> int:
        return len(self._skills)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._skills)

    def get(self, name: str) -> Skill:
        if name not in self._skills:
            raise InvalidOption(
                "name", f"no skill named {name!r}; skills: {', '.join(self._skills) or 'none'}"
            )
        return self._skills[name]

    def catalog(self) -> str:
        """One line a skill, ``- name: description``, for the system prompt."""
        return "\n".join(f"- {s.name}: {s.description}" for s in self)
