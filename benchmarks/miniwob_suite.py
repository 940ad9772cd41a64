"""Writes the bundled MiniWoB++ suite, ``src/pagesight/eval/suites/miniwob``: ``suite.toml``
(every task type below, each at every seed) and a steps file per episode for the offline
steps planner, written from the episode's utterance by one rule per task type.

The utterances are read in Chromium, from MiniWoB served as the suite serves it (the
``miniwob`` package must be installed: ``pip install 'pagesight[miniwob]'``). Run it again
after changing the task types or the seeds::

    python benchmarks/miniwob_suite.py

Generated rather than written by hand because every task is the same five lines but for its
type and seed, and every steps file follows from its utterance; the files it writes are plain
suite and steps files, to read, copy and edit like any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pagesight import Browser
from pagesight.eval.miniwob import REWARD_CHECK, MiniWobServer

SUITE = Path(__file__).resolve().parent.parent / "src/pagesight/eval/suites/miniwob"
SEEDS = (1, 2, 3, 4, 5)
MAX_STEPS = 10


def _quoted(utterance: str) -> list[str]:
    return re.findall(r'"([^"]*)"', utterance)


def _q(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _click_button(u: str) -> list[str]:
    return [f"click the {_q(_quoted(u)[0])} button"]


def _click_link(u: str) -> list[str]:
    return [f"click {_q(_quoted(u)[0])}"]


def _enter_text(u: str) -> list[str]:
    return [f"type {_q(_quoted(u)[0])} into the text field", "click the Submit button"]


def _click_checkboxes(u: str) -> list[str]:
    found = re.fullmatch(r"Select (.*) and click Submit\.", u)
    assert found, u
    names = [] if found[1] == "nothing" else [n.strip() for n in found[1].split(",")]
    return [f"click the {_q(n)} checkbox" for n in names] + ["click the Submit button"]


def _click_option(u: str) -> list[str]:
    found = re.fullmatch(r"Select (.*) and click Submit\.", u)
    assert found, u
    return [f"click the {_q(found[1])} radio button", "click the Submit button"]


def _choose_list(u: str) -> list[str]:
    found = re.fullmatch(r"Select (.*) from the list and click Submit\.", u)
    assert found, u
    return [f"select {_q(found[1])} in the list", "click the Submit button"]


def _focus_text(u: str) -> list[str]:
    return ["click the textbox"]


def _focus_text_2(u: str) -> list[str]:
    found = re.fullmatch(r"Focus into the (1st|2nd|3rd) input textbox\.", u)
    assert found, u
    number = "123"[["1st", "2nd", "3rd"].index(found[1])]
    return [f"click the tt{number} textbox"]  # unnamed: tt1, tt2, tt3 are their ids


def _click_dialog(u: str) -> list[str]:
    return ["click the Close button"]


def _click_dialog_2(u: str) -> list[str]:
    label = _quoted(u)[0]
    return ["click the Close button" if label == "x" else f"click the {_q(label)} button"]


def _enter_password(u: str) -> list[str]:
    password = _q(_quoted(u)[0])
    return [
        f"type {password} into Password",
        f"type {password} into Verify password",
        "click the Submit button",
    ]


def _login_user(u: str) -> list[str]:
    user, password = _quoted(u)
    return [
        f"type {_q(user)} into Username",
        f"type {_q(password)} into Password",
        "click the Login button",
    ]


def _click_tab(u: str) -> list[str]:
    found = re.fullmatch(r"Click on Tab #(\d+)\.", u)
    assert found, u
    # Not 'the "Tab #1" tab': the tab's unnamed link inside it scores too close to it.
    return [f'click "Tab #{found[1]}"']


def _click_button_sequence(u: str) -> list[str]:
    return ["click the ONE button", "click the TWO button"]


TYPES: dict[str, Callable[[str], list[str]]] = {
    "click-button": _click_button,
    "click-link": _click_link,
    "enter-text": _enter_text,
    "click-checkboxes": _click_checkboxes,
    "click-option": _click_option,
    "choose-list": _choose_list,
    "focus-text": _focus_text,
    "focus-text-2": _focus_text_2,
    "click-dialog": _click_dialog,
    "click-dialog-2": _click_dialog_2,
    "enter-password": _enter_password,
    "login-user": _login_user,
    "click-tab": _click_tab,
    "click-button-sequence": _click_button_sequence,
}
"""MiniWoB++ task types that are plain DOM (no canvas, no drawing, no timing) and whose
utterance says what to do."""

HEADER = f"""\
# MiniWoB++ (Liu et al., 2018), served on 127.0.0.1 from the miniwob package on PyPI
# (pip install 'pagesight[miniwob]'): {len(TYPES)} plain-DOM task types, each at the seeds
# {", ".join(map(str, SEEDS))}: {len(TYPES) * len(SEEDS)} fixed episodes, the same on every run.
# Written, with a steps file per episode, by benchmarks/miniwob_suite.py.
#
# start: the task's page with its seed; the page seeds Math.random as the MiniWoB++ gym does
# (Math.seedrandom(N)) and starts the episode at once (pagesight.eval.miniwob).
# goal_from: the goal is the episode's utterance, read from the page (#query, as
# core.getUtterance() reads it): what published MiniWoB++ results give the model.
# The check: MiniWoB's own reward, read on the final page: the task passes when the episode
# ended with raw reward 1 (the gym's binary reward; BrowserGym counts any raw reward > 0,
# which differs only where a task gives partial credit: click-checkboxes). The raw and the
# time-discounted reward are in the check's reason. The episode's time limit is 1,000 s
# (as BrowserGym sets it), not MiniWoB's 10 s: a model slow but right is not failed.

name = "miniwob"
description = "MiniWoB++: {len(TYPES)} plain-DOM task types x {len(SEEDS)} seeded episodes, \
MiniWoB's own reward read from the page"

[app]
builtin = "miniwob"
"""


def main() -> None:
    steps_folder = SUITE / "steps"
    steps_folder.mkdir(parents=True, exist_ok=True)
    for old in steps_folder.glob("*.steps"):
        old.unlink()
    check = REWARD_CHECK.replace("\\", "\\\\").replace('"', '\\"')
    parts = [HEADER]
    with MiniWobServer.start() as server, Browser.launch() as browser:
        for kind, rule in TYPES.items():
            parts.append(f"\n# --- {kind} " + "-" * (85 - len(kind)) + "\n")
            for seed in SEEDS:
                start = f"/miniwob/{kind}.html?seed={seed}"
                page = browser.open(server.url + start)
                utterance = str(page.playwright.evaluate("core.getUtterance()"))
                page.close()
                task = f"{kind}.{seed}"
                steps = "\n".join([f"# {utterance}", *rule(utterance)]) + "\n"
                (steps_folder / f"{task}.steps").write_text(steps)
                parts.append(
                    f"""
[[tasks]]
id = "{task}"
category = "{kind}"
start = "{start}"
goal_from = "#query"
steps = "steps/{task}.steps"
max_steps = {MAX_STEPS}
[[tasks.checks]]
page_script = "{check}"
"""
                )
    (SUITE / "suite.toml").write_text("".join(parts))
    print(f"wrote {SUITE / 'suite.toml'}: {len(TYPES) * len(SEEDS)} tasks")


if __name__ == "__main__":
    main()
