"""Small helpers the perception tests share."""

from __future__ import annotations

from typing import Any

from pagesight import Element, Observation


def named(obs: Observation, name: str) -> list[Element]:
    """The elements whose name is exactly ``name``."""
    return [el for el in obs.elements if el.name == name]


def one(obs: Observation, name: str, role: str | None = None) -> Element:
    """The single element named ``name`` (and of ``role``, if given); fails loudly otherwise."""
    found = [el for el in named(obs, name) if role is None or el.role == role]
    assert len(found) == 1, f"expected one {role or 'element'} {name!r}, got {found}\n{obs.text()}"
    return found[0]


def absent(obs: Observation, *names: str) -> None:
    text = obs.text()
    for name in names:
        assert not named(obs, name), f"{name!r} should be out:\n{text}"
        assert name not in text, f"{name!r} should not appear in the text:\n{text}"


def open_and_observe(page: Any, url: str) -> Observation:
    """Load ``url`` in the test's tab and observe it."""
    page.playwright.goto(url)
    obs: Observation = page.observe()
    return obs


def line(obs: Observation, needle: str) -> str:
    """The one line of the outline holding ``needle``, stripped; fails loudly otherwise."""
    found = [text.strip() for text in obs.text().splitlines() if needle in text]
    assert len(found) == 1, f"expected one line with {needle!r}:\n{obs.text()}"
    return found[0]
