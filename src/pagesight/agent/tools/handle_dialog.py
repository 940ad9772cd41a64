from __future__ import annotations

from pagesight.agent.session import Session
from pagesight.agent.tool import ToolResult


async def handle_dialog(
    session: Session, *, accept: bool, prompt_text: str | None = None
) -> ToolResult:
    """Say how to answer the JavaScript dialogs (alert, confirm, prompt) of this tab's next
    action. Dialogs are answered the moment they open (by default confirms and prompts are
    dismissed), and an action's effect names the dialog it opened and its answer (dialog confirm
    "Delete?": dismissed); to answer it otherwise, call this, then repeat that action. It
    applies to that one action (to each dialog it opens); the ones after get the default
    answer again.

    Args:
        accept: True to accept (OK), false to dismiss (Cancel).
        prompt_text: What to type into a prompt() dialog before accepting it.
    """
    # A dialog is the tab's document's (Chromium names its origin in the dialog): a secret
    # is checked against the tab's URL now.
    filled = session.secrets.fill_for(prompt_text, at=session.page.url, where="this tab")
    await session.page.answer_next_dialog(accept=accept, prompt_text=filled)
    answer = "accepted" if accept else "dismissed"
    typed = f" with {prompt_text!r}" if accept and prompt_text is not None else ""
    return ToolResult(
        text=f"the dialogs of this tab's next action will be {answer}{typed}; now repeat the "
        "action that opens them",
        value={"accept": accept, "prompt_text": prompt_text},
    )
