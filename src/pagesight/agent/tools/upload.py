from __future__ import annotations

from pathlib import Path

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep
from pagesight.errors import InvalidOption


async def upload(
    session: Session, *, ref: int, files: list[str], element: str | None = None
) -> PageStep:
    """Set files on a file input, or on the button or label that opens one.

    Args:
        ref: The file input (or its button) by its id in the latest observation.
        files: Paths of the files to upload (where uploads are confined to a folder, a
            relative path is in that folder).
        element: The control in words, as a person would name it.
    """
    if session.upload_dir is not None:
        files = [str(_inside(session.upload_dir, name)) for name in files]
    return PageStep(ref=ref, action="upload", args={"files": files})


def _inside(folder: Path, name: str) -> Path:
    """``name`` (relative to ``folder``) as a path that is in ``folder``, links resolved:
    else InvalidOption, so nothing outside the folder can be sent to a page."""
    root = folder.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root):
        raise InvalidOption(
            "files",
            f"{name} is outside the folder uploads may come from ({root}); "
            "ask the user to put the file there",
        )
    return path
