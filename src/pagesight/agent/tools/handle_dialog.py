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
    # Checked against the tab's URL now, and again when the prompt opens: the action may
    # have led elsewhere, or a frame of another origin may be the one asking.
    secrets = session.secrets
    filled = secrets.fill_for(prompt_text, at=session.page.url, where="this tab")

    def check(urls: tuple[str, ...]) -> None:
        for url in urls:
            if not url.startswith("about:"):  # about:blank and srcdoc are their parent's
                secrets.fill_for(prompt_text, at=url, where="a frame of the tab")

    scoped = prompt_text is not None and any(
        secrets.scope(name) is not None for name in secrets.named_in(prompt_text)
    )
    await session.page.answer_next_dialog(
        accept=accept, prompt_text=filled, prompt_check=check if scoped else None
    )
    answer = "accepted" if accept else "dismissed"
    typed = f" with {prompt_text!r}" if accept and prompt_text is not None else ""
    return ToolResult(
        text=f"the dialogs of this tab's next action will be {answer}{typed}; now repeat the "
        "action that opens them",
        value={"accept": accept, "prompt_text": prompt_text},
    )
