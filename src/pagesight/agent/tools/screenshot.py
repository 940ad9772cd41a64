from __future__ import annotations

import asyncio
from pathlib import Path

from pagesight.agent.secrets import hide_secrets
from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult
from pagesight.errors import InvalidOption
from pagesight.vision.images import decode_png

_NAME_MAX = 255
"""The longest file name (in bytes) Linux, macOS and Windows file systems all take."""


async def screenshot(
    session: Session, *, marks: bool = False, filename: str | None = None
) -> ToolResult:
    """Take a screenshot of the viewport (a PNG image).

    Args:
        marks: Draw a box and a numbered badge (its id) on every element in view.
        filename: Also save it under this name (a plain file name, no folders) in the
            output folder.
    """
    target = _target(session, filename) if filename is not None else None
    observation = session.latest if marks else None
    if session.secrets.values:
        # Read from the page as it is now (the latest observation may predate a value typed
        # or shown since): every element showing a secret is blacked out before the image
        # is saved or sent.
        now = await session.page.observe()
        capture = await session.page.capture(hide=session.secrets.shown_as)
        marked = (observation or now).elements if marks else ()
        png = await asyncio.to_thread(hide_secrets, capture, now, session.secrets, marked=marked)
    else:
        png = await session.page.screenshot(marks=marks, observation=observation)
    width, height = decode_png(png).size
    text = f"screenshot {width}x{height}" + (" with marks (badge = element id)" if marks else "")
    value: dict[str, object] = {"width": width, "height": height, "marks": marks}
    if target is not None:
        try:
            target.write_bytes(png)
        except OSError as exc:  # a folder of that name, the output folder gone, a full disk
            raise InvalidOption(
                "filename", f"cannot save {target} ({exc.strerror or exc}); try another name"
            ) from exc
        text += f"; saved as {target}"
        value["path"] = str(target)
    return ToolResult(text=text, value=value, image=png)


def _target(session: Session, filename: str) -> Path:
    """Where ``filename`` is saved: in the session's output folder and nowhere else, so a
    name that could reach another folder (a separator, ``..``, a leading dot) is refused
    before the page is touched."""
    if session.output_dir is None:
        raise InvalidOption(
            "filename", "this session has no output folder to save a filename in; leave it out"
        )
    name = filename if Path(filename).suffix.lower() == ".png" else f"{filename}.png"
    bad = (
        not filename.strip()
        or "/" in filename
        or "\\" in filename
        or ".." in filename
        or filename.startswith(".")
        # A character that does not print (NUL ends the name for the OS, a newline breaks
        # the answer's line, a right-to-left override disguises the name, a lone surrogate
        # cannot be encoded) and a name past the file systems' 255 bytes cannot be saved
        # as the model reads it.
        or not filename.isprintable()
        or len(name.encode("utf-8")) > _NAME_MAX
    )
    if bad:
        shown = filename if len(filename) <= 60 else f"{filename[:60]}…"
        raise InvalidOption(
            "filename",
            f"filename must be a plain file name such as 'form.png', not {shown!r} "
            f"(no folders, no '..', no leading dot, only printable characters, at most "
            f"{_NAME_MAX} bytes); it is saved in the output folder",
        )
    return session.output_dir / name
