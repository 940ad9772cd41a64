"""Answers to the decisions planner on Orbit CRM's demo task, as a capable model would give
them — a script for :class:`~pagesight.testing.decisions.FakeDecisionsServer`, so that the
planner runs the bundled demo end to end offline (pagesight's tests and benchmarks do)::

    from pagesight.testing.decisions_demo import ORBIT_GOAL, orbit_script

    with OrbitApp.start() as app, FakeDecisionsServer(orbit_script()) as fake:
        planner = DecisionsPlanner.from_env(api_key="test", base_url=fake.base_url)
        Agent(browser, planner).run(app.url, goal=ORBIT_GOAL)

The model is played by reading the request the way the model would read the screenshot: the
legend of the badges (their roles, names and values) and the last action. It is an example of
a script that is a function of the request, too.
"""

from __future__ import annotations

import re
from typing import Any

from pagesight.testing.decisions import DecisionsRequest, Item

TITLE = "Senior Software Engineer"
CITY = "New York"
ORBIT_GOAL = (
    f'Find Alice Chen, set her job title to "{TITLE}" and her location to "{CITY}", and save.'
)
READ_ONLY = [0.95, 0.04, 0.007, 0.003]
"""Risk over the four levels: reading and navigating."""
ENTERING = [0.08, 0.88, 0.03, 0.01]
"""Typing into a form, or saving it: enters information."""


def orbit_script(steps: int = 20) -> list[Any]:
    """The script: :func:`orbit_answers` for each of up to ``steps`` requests."""
    return [orbit_answers] * steps


def orbit_answers(request: DecisionsRequest) -> Item:
    """What a capable model answers to one request of the Orbit CRM task."""
    text, last = request.legend, request.texts[1] if len(request.texts) > 1 else ""
    calm = {"blocked": 0.02, "dismiss": "none"}
    if "value" in request.questions:
        calm["value"] = "none"
    if re.search(r'click \[\d+\] button "Save"', last):
        return {**calm, "goal_reached": 0.97, "risk": READ_ONLY, "target_visible": 0.9}
    step: dict[str, Any] = {**calm, "goal_reached": 0.02, "target_visible": 0.95}
    if 'page "Edit contact: Alice Chen' in text:  # the edit form
        title = _field(text, "textbox", "Job title")
        location = _field(text, "combobox", "Location")
        if title is not None and title[1] != TITLE:
            value = _value(request, TITLE)
            return {**step, "next_action": title[0], "value": value, "risk": ENTERING}
        if location is not None and location[1] != CITY:
            value = _value(request, CITY)
            return {**step, "next_action": location[0], "value": value, "risk": ENTERING}
        try:
            save = request.badge("Save", "button")
        except AssertionError:  # below the fold: the model cannot see it
            unsure = {k: 0.3 for k in request.options("next_action")[:1]}
            return {**step, "target_visible": 0.08, "next_action": unsure, "risk": ENTERING}
        return {**step, "next_action": save, "risk": ENTERING}
    if 'page "Alice Chen · Orbit CRM"' in text:  # her page
        return {**step, "next_action": request.badge("Edit", "link"), "risk": READ_ONLY}
    return {**step, "next_action": request.badge("Alice Chen", "link"), "risk": READ_ONLY}


def _field(text: str, role: str, name: str) -> tuple[str, str] | None:
    """The badge and the value of a field in the legend."""
    found = re.search(
        rf'\[(\d+)\] {role} "{re.escape(name)}"(?:: (.*?))?(?= \[| options=| / |$)', text, re.M
    )
    return (found.group(1), found.group(2) or "") if found else None


def _value(request: DecisionsRequest, value: str) -> dict[str, float]:
    """The value question's answer: the option whose description is ``value``."""
    criteria = request.questions["value"]["criteria"]
    key = next(k for k, v in criteria.items() if v == value)
    return {key: 0.93, "none": 0.05}
