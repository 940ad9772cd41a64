from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def upload(
    session: Session, *, ref: int, files: list[str], element: str | None = None
) -> PageStep:
    """Set files on a file input, or on the button or label that opens one.

    Args:
        ref: The file input (or its button) by its id in the latest observation.
        files: Paths of the files to upload.
        element: The control in words, as a person would name it.
    """
    return PageStep(ref=ref, action="upload", args={"files": files})
