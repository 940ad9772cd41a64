"""A suite's own check: called with the task's workdir, the app's URL and the run's result."""

from pathlib import Path
from typing import Any


def three_regions(workdir: Path, base_url: str, result: Any) -> bool | str:
    files = list((workdir / "downloads").glob("*.csv"))
    if not files:
        return "no CSV was downloaded"
    rows = files[0].read_text().strip().splitlines()[1:]
    if not base_url.startswith("http://127.0.0.1:"):
        return f"the app was not on 127.0.0.1: {base_url}"
    return True if len(rows) == 3 else f"the CSV has {len(rows)} rows"
