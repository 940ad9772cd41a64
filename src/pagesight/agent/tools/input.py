from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import PageStep


async def input(
    session: Session,
    *,
    ref: int,
    text: str,
    element: str | None = None,
    submit: bool = False,
    append: bool = False,
    slowly: bool = False,
) -> PageStep:
    """Type text into a field (its value is replaced); {{NAME}} types the secret NAME.

    Args:
        ref: The field's id, the number in brackets in the latest observation.
        text: What to type; a date or time field takes its own format or a human one.
        element: The field in words, as a person would name it ("the Job title field").
        submit: Press Enter afterwards (send a search, submit the form).
        append: Add to the field's value instead of replacing it.
        slowly: Type key by key, for fields that react to each key.
    """
    args: dict[str, object] = {"text": text, "append": append}
    if slowly:
        args["keys"] = True
    return PageStep(ref=ref, action="input_submit" if submit else "input", args=args)
