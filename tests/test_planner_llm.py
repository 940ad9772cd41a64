"""The model planner's behaviour with a scripted model on real pages: tool calls checked
against the registry's own schemas (errors fed back, retried, then a typed stop), the slips
of local models recovered (never guessed when ambiguous), answers in words, page text only
inside the untrusted markers, what changed after an action, and the set-of-marks picture
once the page is read off the screen."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import Agent, Browser
from pagesight.agent.untrusted import CLOSE, OPEN, RULE
from pagesight.demo import OrbitApp
from pagesight.errors import InvalidOption
from pagesight.messages import Message, ModelReply, ToolCall, Usage
from pagesight.models.model import ScriptedModel
from pagesight.planners.llm.context import DELTA, FULL, whole_pages
from pagesight.planners.llm.planner import ModelPlanner
from pagesight.vision.images import decode_png
from vision_support import APP_READY, app_state

Script = list[ModelReply | Callable[[Sequence[Message]], ModelReply]]


def seen_ref(messages: Sequence[Message], role: str, name: str) -> int:
    """The id of ``role "name"`` as the model last read it in the messages it was sent
    (the whole page, or a change of it since), newest first."""
    pattern = re.compile(rf'\[(\d+)\] {role} "{re.escape(name)}"')
    for message in reversed(messages):
        found = pattern.findall(message.content)
        if found:
            assert len(set(found)) == 1, message.content
            return int(found[-1])
    raise AssertionError(f'no {role} "{name}" in what the model was sent')


def click(role: str, name: str) -> Callable[[Sequence[Message]], ModelReply]:
    return lambda m: ModelReply.calling("click", ref=seen_ref(m, role, name))


def written(template: str, role: str, name: str) -> Callable[[Sequence[Message]], ModelReply]:
    """A reply with no tool call, the call written in its text (``{ref}`` filled in)."""
    return lambda m: ModelReply(text=template.replace("{ref}", str(seen_ref(m, role, name))))


def run(
    browser: Browser,
    url: str,
    script: Script,
    tmp_path: Path,
    *,
    goal: str = "the goal",
    **options: Any,
) -> tuple[Any, ScriptedModel, Any]:
    """Run a ModelPlanner playing ``script`` on ``url``: the result, the model (with every
    request it was sent) and what ``read`` of the page's own state gives afterwards."""
    model = ScriptedModel(script)
    agent = Agent(browser, ModelPlanner(model, **options), out=tmp_path, max_steps=15)
    result = agent.run(url, goal=goal)
    return result, model, agent.page


def page_value(page: Any, expression: str) -> Any:
    try:
        return page.playwright.evaluate(expression)
    finally:
        page.close()


# --- 1. tool calls checked with the tools' own schemas, errors fed back, retried ---------


def test_invalid_arguments_and_an_unknown_tool_are_fed_back_then_the_retry_runs(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    usage = Usage(input_tokens=100, output_tokens=10)
    script: Script = [
        ModelReply(  # ref must be an element's id, not its name
            tool_calls=(ToolCall(id="c1", name="click", arguments={"ref": "Publish"}),),
            usage=usage,
        ),
        ModelReply(tool_calls=(ToolCall(id="c2", name="clik", arguments={"ref": 1}),), usage=usage),
        lambda m: ModelReply(
            tool_calls=(
                ToolCall(
                    id="c3", name="click", arguments={"ref": seen_ref(m, "button", "Publish")}
                ),
            ),
            usage=usage,
        ),
        ModelReply.calling("done"),
    ]
    result, model, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish"]
    assert (
        result.stop_reason == "done" and result.rounds == 4
    )  # two refused replies, the click, then done
    # Each refusal reached the model as the result of the call it made, in words.
    bad_args, unknown = model.requests[1][-1], model.requests[2][-1]
    assert (bad_args.role, bad_args.tool_call_id) == ("tool", "c1")
    assert bad_args.content == (
        "error (invalid_arguments): click: ref: Input should be a valid integer, unable to "
        "parse string as an integer (got 'Publish')"
    )
    assert (unknown.role, unknown.tool_call_id) == ("tool", "c2")
    assert unknown.content.startswith("error (unknown_tool): no tool named 'clik'; tools: ")
    # One decision, three replies: the record keeps the refused ones and all their tokens.
    step = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[0])
    decision = step["decision"]
    assert decision["type"] == "action" and decision["tool"] == "click"
    assert [r["tool_calls"][0]["name"] for r in decision["raw"]["retried"]] == ["click", "clik"]
    assert decision["usage"]["input_tokens"] == 300


def test_calls_still_invalid_after_the_retries_stop_with_model_invalid(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    bad = ModelReply(tool_calls=(ToolCall(id="x", name="click", arguments={}),))
    result, model, page = run(browser, server.url("llm-retry.html"), [bad] * 5, tmp_path)
    assert page_value(page, "window.clicks") == []
    assert result.stop_reason == "model_invalid"
    assert result.message == (
        "the model's tool calls were refused 3 times in a row; the last: "
        "error (invalid_arguments): click: ref: Field required"
    )
    assert len(model.requests) == 3  # the first answer and the 2 retries by default
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["stop_reason"] == "model_invalid" and summary["reached"] is False

    result, model, page = run(
        browser, server.url("llm-retry.html"), [bad] * 5, tmp_path / "none", retries=0
    )
    page.close()
    assert result.stop_reason == "model_invalid" and len(model.requests) == 1


def test_a_batch_call_has_each_of_its_actions_checked_before_anything_runs(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def batch(m: Sequence[Message], second: dict[str, Any]) -> ModelReply:
        first = {"tool": "click", "arguments": {"ref": seen_ref(m, "button", "Publish")}}
        return ModelReply.calling("batch", actions=[first, second])

    script: Script = [
        lambda m: batch(m, {"tool": "click", "arguments": {"ref": 1, "colour": "red"}}),
        lambda m: batch(
            m, {"tool": "click", "arguments": {"ref": seen_ref(m, "button", "Discard draft")}}
        ),
        ModelReply.calling("done"),
    ]
    result, model, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish", "Discard draft"]  # once each
    assert result.stop_reason == "done"
    assert model.requests[1][-1].content == (
        "error (invalid_arguments): batch action 2: click: colour: Extra inputs are not "
        "permitted (got 'red')"
    )


def test_done_in_the_same_reply_as_an_action_is_refused(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        lambda m: ModelReply(
            tool_calls=(
                ToolCall(id="a", name="click", arguments={"ref": seen_ref(m, "button", "Publish")}),
                ToolCall(id="b", name="done", arguments={}),
            )
        ),
        click("button", "Publish"),
        ModelReply.calling("done"),
    ]
    result, model, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish"]
    assert (
        result.stop_reason == "done" and result.rounds == 3
    )  # the refused reply, the click, then done
    answers = {m.tool_call_id: m.content for m in model.requests[1] if m.role == "tool"}
    assert answers["a"] == "not run: another call of this reply was refused"
    assert answers["b"].startswith("error (invalid_arguments): done: call done alone")


def test_act_beside_another_tool_in_one_reply_is_refused_saying_how_to_call_it(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # A model making parallel calls (act, then a find) would otherwise have them run as a
    # batch, which refuses act as "not a page action": a round spent on an untrue error.
    def publish_and_find(m: Sequence[Message]) -> ModelReply:
        steps = f"click [{seen_ref(m, 'button', 'Publish')}]"
        return ModelReply(
            tool_calls=(
                ToolCall(id="a", name="act", arguments={"steps": steps}),
                ToolCall(id="b", name="find_element", arguments={"query": "status"}),
            )
        )

    def publish(m: Sequence[Message]) -> ModelReply:
        return ModelReply.calling("act", steps=f"click [{seen_ref(m, 'button', 'Publish')}]")

    script: Script = [publish_and_find, publish, ModelReply.calling("done")]
    result, model, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish"]
    assert (
        result.stop_reason == "done" and result.rounds == 3
    )  # the refused reply, the act, then done
    answers = {m.tool_call_id: m.content for m in model.requests[1] if m.role == "tool"}
    assert answers["a"].startswith("error (invalid_arguments): act: call act alone")
    assert answers["b"] == "not run: another call of this reply was refused"


def test_several_act_calls_in_one_reply_run_as_one_list_of_steps(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def both(m: Sequence[Message]) -> ModelReply:
        publish, discard = (seen_ref(m, "button", n) for n in ("Publish", "Discard draft"))
        return ModelReply(
            tool_calls=(
                ToolCall(id="a", name="act", arguments={"steps": f"click [{publish}]"}),
                ToolCall(id="b", name="act", arguments={"steps": f"click [{discard}]"}),
            )
        )

    script: Script = [both, ModelReply.calling("done")]
    result, _, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish", "Discard draft"]
    assert result.rounds == 2 and len(result.steps[0].calls) == 1  # one act, both lines
    assert result.steps[0].calls[0].error is None


def test_the_system_prompt_teaches_the_tools_the_profile_shows(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    prompts = {}
    for profile in ("core", "full"):
        model = ScriptedModel([ModelReply.calling("done")])
        agent = Agent(browser, ModelPlanner(model), out=tmp_path / profile, tool_profile=profile)
        agent.run(server.url("llm-retry.html"), goal="the goal")
        assert agent.page is not None
        agent.page.close()
        prompts[profile] = model.requests[0][0].content
    assert "Act with `act`, one step a line" in prompts["core"]
    assert "`act`" not in prompts["full"] and "`batch`" in prompts["full"]


def test_calls_without_ids_get_ids_of_their_own_to_be_answered_by(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def unnamed(m: Sequence[Message]) -> ModelReply:
        refs = [seen_ref(m, "button", name) for name in ("Alpha", "Bravo")]
        return ModelReply(
            tool_calls=tuple(ToolCall(id="", name="click", arguments={"ref": r}) for r in refs)
        )

    script: Script = [unnamed, ModelReply.calling("done")]
    result, model, page = run(browser, server.url("llm-slips.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Alpha", "Bravo"]
    assert result.stop_reason == "done"
    said = next(m for m in model.requests[1] if m.tool_calls)
    answered = [m.tool_call_id for m in model.requests[1] if m.role == "tool"]
    ids = [c.id for c in said.tool_calls]
    assert all(ids) and len(set(ids)) == 2 and answered == ids


def test_no_two_calls_the_model_is_shown_share_an_id(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    """In a fresh process, where the ids are counted from the start: a scripted call
    (``ModelReply.calling``), then a call a server sent with no id, given one of its own:
    the model reads both with their answers, so each id must be only that call's."""
    script = textwrap.dedent(
        f"""
        import json
        from pagesight import Agent, Browser
        from pagesight.messages import ModelReply, ToolCall
        from pagesight.models import ScriptedModel
        from pagesight.planners.llm import ModelPlanner

        unnamed = ModelReply(tool_calls=(ToolCall(id="", name="observe"),))
        model = ScriptedModel([ModelReply.calling("observe"), unnamed, ModelReply.calling("done")])
        with Browser.connect({browser.cdp_url!r}) as attached:
            agent = Agent(attached, ModelPlanner(model), out={str(tmp_path)!r})
            result = agent.run({server.url("llm-slips.html")!r}, goal="look twice")
            agent.page.close()
        sent = model.requests[-1]
        print(json.dumps({{
            "stop": result.stop_reason,
            "calls": [c.id for m in sent for c in m.tool_calls],
            "answers": [m.tool_call_id for m in sent if m.role == "tool"],
        }}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(Path(__file__).parents[1] / "src"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["stop"] == "done"
    assert len(seen["calls"]) == 2 and len(set(seen["calls"])) == 2, seen
    assert seen["answers"] == seen["calls"]


def test_bad_options_are_refused_before_any_page_opens() -> None:
    with pytest.raises(InvalidOption, match="retries must be an int of 0 or more, not -1"):
        ModelPlanner(ScriptedModel([]), retries=-1)
    with pytest.raises(InvalidOption, match="budget must be a positive int, not 0"):
        ModelPlanner(ScriptedModel([]), budget=0)


# --- 2. the slips of local models -----------------------------------------------------


MISTRAL = (
    '[TOOL_CALLS][{{"name": "click", "arguments": {{"ref": {}}}}}, '
    '{{"name": "click", "arguments": {{"ref": {}}}}}]'
)
OPENAI = '{"type": "function", "function": {"name": "click", "arguments": "{\\"ref\\": {ref}}"}}'


def test_each_slip_of_a_local_model_is_recovered_into_its_tool_call(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        written('```json\n{"name": "click", "arguments": {"ref": {ref}}}\n```', "button", "Alpha"),
        written(
            '{"name": "click", "arguments": {"ref": {ref}}}\nThis presses Bravo, as asked.',
            "button",
            "Bravo",
        ),
        written('I will press it: click(ref={ref}, element="Charlie")', "button", "Charlie"),
        written('{"tool": "click", "args": {"ref": {ref}}}', "button", "Delta"),
        written(  # Qwen 2.5 / Hermes
            '<tool_call>\n{"name": "click", "arguments": {"ref": {ref}}}\n</tool_call>',
            "button",
            "Echo",
        ),
        written(  # Qwen3-Coder: every value a string, "7" checked into the int 7
            "<tool_call>\n<function=click>\n<parameter=ref>\n{ref}\n</parameter>\n"
            "</function>\n</tool_call>",
            "button",
            "Foxtrot",
        ),
        written(  # Llama 3.1
            '<|python_tag|>{"name": "click", "parameters": {"ref": {ref}}}', "button", "Golf"
        ),
        lambda m: ModelReply(  # Mistral: a list of calls, one round
            text=MISTRAL.format(seen_ref(m, "button", "Hotel"), seen_ref(m, "button", "India"))
        ),
        written(OPENAI, "button", "Juliett"),  # OpenAI's shape, arguments as a JSON string
        ModelReply(text="<think>All ten are pressed.</think>\ndone(answer=null)"),
    ]
    result, model, page = run(browser, server.url("llm-slips.html"), script, tmp_path)
    clicks = page_value(page, "window.clicks")
    assert clicks == [
        "Alpha", "Bravo", "Charlie", "Delta", "Echo",
        "Foxtrot", "Golf", "Hotel", "India", "Juliett",
    ]  # fmt: skip
    assert result.stop_reason == "done"
    assert len(model.requests) == 10  # nothing refused, nothing asked twice
    decisions = [
        json.loads(line)["decision"] for line in (tmp_path / "run.jsonl").read_text().splitlines()
    ]
    assert [d["type"] for d in decisions] == ["action"] * 7 + ["batch", "action", "done"]
    assert decisions[5]["arguments"] == {"ref": seen_ref(model.requests[5], "button", "Foxtrot")}
    assert all(d["raw"]["tool_calls"] == [] and d["raw"]["written_calls"] for d in decisions)


def test_two_different_calls_written_apart_are_not_guessed(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    def either(m: Sequence[Message]) -> ModelReply:
        publish, discard = seen_ref(m, "button", "Publish"), seen_ref(m, "button", "Discard draft")
        return ModelReply(text=f"I could click(ref={publish}), or perhaps click(ref={discard}).")

    def two_objects(m: Sequence[Message]) -> ModelReply:
        publish, discard = seen_ref(m, "button", "Publish"), seen_ref(m, "button", "Discard draft")
        return ModelReply(
            text=f'First {{"name": "click", "arguments": {{"ref": {publish}}}}}, unless '
            f'{{"name": "click", "arguments": {{"ref": {discard}}}}} is better.'
        )

    script: Script = [either, two_objects, click("button", "Publish"), ModelReply.calling("done")]
    result, model, page = run(browser, server.url("llm-retry.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == ["Publish"]  # nothing ran on a guess
    assert result.stop_reason == "done"
    publish = seen_ref(model.requests[0], "button", "Publish")
    discard = seen_ref(model.requests[0], "button", "Discard draft")
    for refused in model.requests[1:3]:
        told = refused[-1]
        assert told.role == "user"
        assert told.content == (
            "error (invalid_tool_call): your reply holds 2 different tool calls written as "
            f'text (click {{"ref": {publish}}}; click {{"ref": {discard}}}) and it is not clear '
            "which one you mean; call exactly the one you mean, with the tool-calling interface"
        )


# --- 6. done with an answer; words with no tool call -----------------------------------


def test_done_after_a_submit_the_browser_stopped_is_unproven_until_it_goes_through(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # The model clicks Create account, the browser's own validation stops it (form_invalid),
    # and the model says done anyway: the run did not reach its goal, and says why.
    url = server.url("form-validation.html")
    script: Script = [click("button", "Create account"), ModelReply.calling("done")]
    result, _, page = run(browser, url, script, tmp_path / "claimed")
    page.close()
    assert result.stop_reason == "unproven" and not result.reached
    assert re.fullmatch(
        r"the planner said the goal is reached, but nothing after showed it: step 1's click "
        r"\[\d+\]: the browser's own validation stopped the submit \(form_invalid\): the form "
        r'was not sent; invalid: \[\d+\] textbox "Email": "Please fill out this field."; .*',
        result.message,
    ), result.message
    summary = json.loads((tmp_path / "claimed" / "summary.json").read_text())
    assert (summary["stop_reason"], summary["reached"]) == ("unproven", False)

    # An expect of what the page showed before the stopped submit proves nothing reached.
    seen_before = ModelReply.calling("act", steps='expect "Create account"')
    script = [click("button", "Create account"), seen_before, ModelReply.calling("done")]
    result, _, page = run(browser, url, script, tmp_path / "seen-before")
    page.close()
    assert result.stop_reason == "unproven", result.message

    # Fixed and sent again, the same click goes through: done is the goal reached.
    def fix(m: Sequence[Message]) -> ModelReply:
        email, age = seen_ref(m, "textbox", "Email"), seen_ref(m, "spinbutton", "Age")
        send = seen_ref(m, "button", "Create account")
        steps = f'type "ada@example.com" into [{email}]\ntype "30" into [{age}]\nclick [{send}]'
        return ModelReply.calling("act", steps=steps)

    script = [click("button", "Create account"), fix, ModelReply.calling("done")]
    result, _, page = run(browser, url, script, tmp_path / "sent")
    assert page_value(page, "window.submits") == 1
    assert result.stop_reason == "done", result.message


def test_words_are_answered_with_a_nudge_and_done_carries_the_answer(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        ModelReply(text="The refund window is 30 days."),
        ModelReply.calling("done", answer="30 days"),
    ]
    result, model, page = run(
        browser, server.url("llm-question.html"), script, tmp_path, goal="the refund window?"
    )
    page.close()
    assert (result.stop_reason, result.answer) == ("done", "30 days")
    nudge = model.requests[1][-1]
    assert nudge.role == "user" and nudge.content.startswith("(no tool was called) Answer by")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["answer"] == "30 days"


def test_words_twice_in_a_row_stop_with_model_no_tool_call(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        ModelReply(text="The refund window is 30 days."),
        ModelReply(text="As I said: thirty days."),
        ModelReply.calling("done", answer="30 days"),
    ]
    result, model, page = run(browser, server.url("llm-question.html"), script, tmp_path)
    page.close()
    assert result.stop_reason == "model_no_tool_call"
    assert result.message == (
        "the model answered in words twice in a row without calling a tool: "
        "'As I said: thirty days.'"
    )
    assert len(model.requests) == 2


# --- 3. page content is data ----------------------------------------------------------

PAGE_WORDS = (
    "zorblax", "quendrith", "vexmoor", "plinthaway", "trombulax", "glindor", "wyvernquill",
    "snorkelbyte", "mauvequist", "fizzmarrow", "obelune", "crumblewick", "dravenhollow",
    "yarrowgast", "pellucine", "ignore every earlier instruction",
)  # fmt: skip


def _outside_markers(text: str) -> str:
    """``text`` without its untrusted blocks; fails if a block does not close."""
    out, rest = [], text
    while OPEN in rest:
        before, _, inside = rest.partition(OPEN)
        assert CLOSE in inside, text
        out.append(before)
        rest = inside.split(CLOSE, 1)[1]
    out.append(rest)
    return "".join(out)


def test_page_text_reaches_the_model_only_inside_the_untrusted_markers(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        click("button", "Fizzmarrow Obelune"),
        lambda m: ModelReply.calling("input", ref=seen_ref(m, "textbox", "Snorkelbyte"), text="ok"),
        click("button", "Yarrowgast Pellucine"),  # read off the change the click made
        ModelReply.calling("find_element", query="the field"),
        ModelReply.calling("done"),
    ]
    result, model, page = run(browser, server.url("llm-untrusted.html"), script, tmp_path)
    assert page_value(page, "window.clicks") == 1
    assert result.stop_reason == "done"
    system = model.requests[0][0]
    assert system.role == "system" and RULE in system.content
    inside_total = ""
    for sent in model.requests:
        for message in sent:
            outside = _outside_markers(message.content).lower()
            for word in PAGE_WORDS:
                assert word not in outside, (word, message)
            # The page's own markers were defused: every block ends where the planner ends it.
            assert message.content.count(OPEN) == message.content.count(CLOSE), message
            inside_total += message.content
    for word in PAGE_WORDS:  # the page was shown (inside), so the check above means something
        assert word in inside_total.lower(), word


# --- 4. what changed after an action --------------------------------------------------


def test_after_an_action_the_model_gets_what_changed_the_page_staying_whole_once(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [
        click("button", "Reserve item 7"),
        click("button", "Reserve item 42"),
        click("link", "Returns policy"),
        ModelReply.calling("done"),
    ]
    result, model, page = run(browser, server.url("llm-delta.html"), script, tmp_path)
    assert page.url.endswith("llm-question.html")
    page.close()
    assert result.stop_reason == "done"
    first, after_one, after_two, new_page = model.requests
    # After each click: the change, not the sixty rows again.
    for sent, item in ((after_one, 7), (after_two, 42)):
        last = sent[-1]
        assert DELTA in last.content and FULL not in last.content
        assert re.search(rf'~ \[\d+\] button "Release item {item}"', last.content), last.content
        assert "Widget number 30" not in last.content
        # The page the changes read on stays whole: one whole page in the context.
        assert whole_pages(sent) == 1 and sent[1].content == first[1].content
    assert sum(DELTA in m.content for m in after_two) == 2  # both changes, in order
    # A new document comes whole, and everything before it collapses.
    assert FULL in new_page[-1].content and "30 days" in new_page[-1].content
    assert whole_pages(new_page) == 1
    assert not any("Widget number" in m.content or DELTA in m.content for m in new_page)
    # Each earlier action keeps its headline, not the elements it changed.
    reserved = [m.content for m in new_page if m.role == "tool"][:2]
    headline = rf"{re.escape(OPEN)}\nclick \[\d+\] -> dom_change\n{re.escape(CLOSE)}"
    for text in reserved:
        assert re.fullmatch(headline + r"\n\(change dropped\)", text), text
    # What the model was sent on the second click is far less than the page each time.
    sent_tokens = sum(m.tokens for m in after_two)
    page_tokens = sum(m.tokens for m in first if m.role != "system")
    assert sent_tokens < 1.5 * page_tokens + sum(m.tokens for m in first if m.role == "system")


def test_the_changes_shown_since_the_page_add_up_until_the_page_is_cheaper(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    # Each round relabels every slot: one round's change is smaller than the page, two
    # rounds' changes read on top of the same page are not.
    script: Script = [click("button", "Next round")] * 3 + [ModelReply.calling("done")]
    result, model, page = run(browser, server.url("llm-delta-sum.html"), script, tmp_path)
    assert page_value(page, "window.round") == 3
    assert result.stop_reason == "done"
    _first, one, two, three = model.requests
    # Round 1: what changed.
    assert DELTA in one[-1].content and FULL not in one[-1].content
    assert re.search(r'~ \[\d+\] button "Slot 1: round 1"', one[-1].content), one[-1].content
    # Round 2: its change and round 1's come to more than the page: the page again, whole.
    assert FULL in two[-1].content and DELTA not in two[-1].content
    assert 'button "Slot 1: round 2"' in two[-1].content and "short page" in two[-1].content
    # Round 3: counted from that page, its change alone is smaller: what changed again.
    assert DELTA in three[-1].content and FULL not in three[-1].content
    assert re.search(r'~ \[\d+\] button "Slot 1: round 3"', three[-1].content)
    for sent in (one, two, three):
        assert whole_pages(sent) == 1


def test_deltas_false_shows_the_whole_page_after_every_action(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    script: Script = [click("button", "Reserve item 7"), ModelReply.calling("done")]
    _, model, page = run(browser, server.url("llm-delta.html"), script, tmp_path, deltas=False)
    page.close()
    last = model.requests[1][-1]
    assert FULL in last.content and 'button "Release item 7"' in last.content
    assert "Widget number 30" in last.content and whole_pages(model.requests[1]) == 1


# --- 5. vision: the set-of-marks picture and its legend --------------------------------


def test_once_the_page_is_read_off_the_screen_the_model_gets_the_marked_picture(
    browser: Browser, server: StaticServer, tmp_path: Path
) -> None:
    seen: list[tuple[Message, ...]] = []

    def on_screen(m: Sequence[Message]) -> ModelReply:
        if seen:  # clicked: the screen shows it
            return ModelReply.calling("done")
        if not m[-1].images:  # the DOM offers nothing yet: look again
            return ModelReply.calling("observe")
        seen.append(tuple(m))
        return ModelReply.calling("click", ref=seen_ref(m, "button", "保存"))

    script: Script = [on_screen] * 5
    model = ScriptedModel(script)
    agent = Agent(browser, ModelPlanner(model), out=tmp_path, max_steps=6)
    page = browser.open(server.url("canvas-app.html"))  # warmed up, so its paint is ready
    page.playwright.wait_for_function(APP_READY)
    page.close()
    result = agent.run(server.url("canvas-app.html"), goal="save the drawing")
    assert agent.page is not None
    try:
        assert app_state(agent.page.playwright)["lastAction"] == "保存"
    finally:
        agent.page.close()
    assert result.stop_reason == "done", result.message
    (vision,) = seen
    shown = vision[-1]
    (png,) = shown.images
    assert png.startswith(b"\x89PNG") and decode_png(png).size[0] >= 1280
    assert "numbered badge" in shown.content and FULL in shown.content
    assert re.search(r'\[\d+\] button "保存"', shown.content)
    assert sum(bool(m.images) for m in vision) == 1
    # After the click the screen is read again: a new picture, the old one dropped.
    last = model.requests[-1]
    assert last[-1].images and sum(bool(m.images) for m in last) == 1


# --- the demo task, as a capable model would do it -------------------------------------


def test_the_model_planner_completes_the_orbit_crm_task(browser: Browser, tmp_path: Path) -> None:
    edit = "(?:link|button)"
    script: Script = [
        lambda m: ModelReply.calling(
            "input", ref=seen_ref(m, "searchbox", "Search contacts"), text="Alice Chen", submit=True
        ),
        click("link", "Alice Chen"),
        click(edit, "Edit"),
        lambda m: ModelReply.calling(
            "batch",
            actions=[
                {
                    "tool": "input",
                    "arguments": {
                        "ref": seen_ref(m, "textbox", "Job title"),
                        "text": "Senior Software Engineer",
                    },
                },
                {
                    "tool": "select",
                    "arguments": {
                        "ref": seen_ref(m, "combobox", "Location"),
                        "values": ["New York"],
                    },
                },
                {"tool": "click", "arguments": {"ref": seen_ref(m, "button", "Save")}},
            ],
        ),
        ModelReply.calling("done"),
    ]
    model = ScriptedModel(script)
    with OrbitApp.start() as app:  # on the session browser, its tab closed after
        agent = Agent(browser, ModelPlanner(model), out=tmp_path, max_steps=10)
        try:
            result = agent.run(app.url, goal="Alice Chen: Senior Software Engineer, New York")
        finally:
            if agent.page is not None:
                agent.page.close()
        rows = app.query("SELECT job_title, location FROM contacts WHERE name = 'Alice Chen'")
    assert rows == [{"job_title": "Senior Software Engineer", "location": "New York"}]
    assert result.stop_reason == "done" and result.rounds == 5  # done is a round too
    # The model read the saved values off the page it was shown before calling done.
    last = model.requests[-1]
    assert any("Senior Software Engineer" in m.content for m in last[-2:]), last[-1].content
    for sent in model.requests:
        assert whole_pages(sent) == 1
