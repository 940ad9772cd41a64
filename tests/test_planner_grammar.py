"""The steps language: every form in English and Chinese, typed errors with their line, the
group words a target may carry, and steps written back that read as the same steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesight.errors import InputError, StepsError
from pagesight.planners import StepsPlanner, format_step, parse
from pagesight.runs.grammar import Step, Target, parse_line

# (line, kind, target words, value, drop target words)
FORMS = [
    ("go to http://127.0.0.1:8000/contacts", "go_to", None, "http://127.0.0.1:8000/contacts", None),
    ("打开 /contacts?q=1", "go_to", None, "/contacts?q=1", None),
    ("click the Save button", "click", "the Save button", None, None),
    ("点击保存按钮", "click", "保存按钮", None, None),
    ('type "Senior Software Engineer" into the Job title field', "type", "the Job title field",
     "Senior Software Engineer", None),
    ('在 搜索框 输入 "Alice"', "type", "搜索框", "Alice", None),
    ('在职位中输入“高级工程师”', "type", "职位", "高级工程师", None),
    ('select "New York" in the Location menu', "select", "the Location menu", "New York", None),
    ('在 城市 选择 "纽约"', "select", "城市", "纽约", None),
    ("press Escape", "press", None, "Escape", None),
    ("press Enter in the search box", "press", "the search box", "Enter", None),
    ("按 Enter", "press", None, "Enter", None),
    ("在 保存按钮 按 Enter", "press", "保存按钮", "Enter", None),
    ("hover over the Help button", "hover", "the Help button", None, None),
    ("悬停 帮助按钮", "hover", "帮助按钮", None, None),
    ("scroll to the Show archived button", "scroll_to", "the Show archived button", None, None),
    ("滚动到 显示已归档", "scroll_to", "显示已归档", None, None),
    ("drag the Add to cart card to the Done column", "drag", "the Add to cart card", None,
     "the Done column"),
    ("拖动 Alice Chen 到 收藏夹", "drag", "Alice Chen", None, "收藏夹"),
    ('upload "cv.pdf" to the Avatar button', "upload", "the Avatar button", "cv.pdf", None),
    ('上传 "cv.pdf" 到 头像', "upload", "头像", "cv.pdf", None),
    ('wait for "Synced 3 contacts"', "wait_for", None, "Synced 3 contacts", None),
    ('等待 "已同步"', "wait_for", None, "已同步", None),
    ('expect "Saved Alice Chen"', "expect_text", None, "Saved Alice Chen", None),
    ('确认 "已保存"', "expect_text", None, "已保存", None),
    ('expect text containing "saved"', "expect_containing", None, "saved", None),
    ('确认包含 "已保存"', "expect_containing", None, "已保存", None),
    ('expect the Job title field to be "CTO"', "expect_value", "the Job title field", "CTO", None),
    ('确认 职位 为 "高级工程师"', "expect_value", "职位", "高级工程师", None),
    ("accept the next dialog", "accept_dialog", None, None, None),
    ("Accept dialog", "accept_dialog", None, None, None),
    ("接受下一个对话框", "accept_dialog", None, None, None),
    ('done "14"', "done", None, "14", None),
    ("done", "done", None, None, None),
    ("完成 “14 行”", "done", None, "14 行", None),
]  # fmt: skip


@pytest.mark.parametrize(("line", "kind", "words", "value", "to"), FORMS)
def test_every_form_in_both_languages(
    line: str, kind: str, words: str | None, value: str | None, to: str | None
) -> None:
    step = parse_line(line, 7)
    assert step is not None
    assert (step.kind, step.value, step.line, step.text) == (kind, value, 7, line)
    assert (step.target.words if step.target else None) == words
    assert (step.to.words if step.to else None) == to


def test_comments_and_blank_lines_are_no_steps_and_lines_keep_their_numbers() -> None:
    steps = parse("# fill the form\n\nclick Edit\n   # indented comment\nclick Save\n")
    assert [(s.line, s.text) for s in steps] == [(3, "click Edit"), (5, "click Save")]


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("click Edit\nfly to the moon\n", 2, "'fly to the moon' is not a step"),
        ("click Edit\n\ntype Alice into the search box\n", 3, "is not a step"),  # unquoted
        ('expect "{{TOKEN}}"\n', 1, "a secret cannot be waited for or expected"),
        ("click {{BUTTON}}\n", 1, "a secret cannot name an element"),
        ("drag the card\n", 1, "drag X to Y"),
        ("# nothing\n\n", None, "no steps"),
        ("done 14\n", 1, "is not a step"),  # an answer is quoted, as a typed value is
        # A step after done would never run: the script says so, naming the done.
        ('click Export\n\ndone "14"\nclick Save\n', 3, "done ends the script"),
    ],
)
def test_bad_scripts_are_typed_errors_naming_the_line(
    text: str, line: int | None, says: str
) -> None:
    with pytest.raises(StepsError) as caught:
        parse(text)
    assert caught.value.line == line
    assert isinstance(caught.value, InputError)  # the CLI's exit 2
    assert says in str(caught.value)
    if line is not None:
        assert str(caught.value).startswith(f"line {line}: ")


def test_group_words_are_read_several_ways_most_specific_first() -> None:
    assert Target(words="Alice Chen's Edit button").splits() == [
        ("Edit button", "Alice Chen"),
        ("Alice Chen's Edit button", None),
    ]
    assert Target(words="the Edit button in Alice Chen").splits() == [
        ("the Edit button", "Alice Chen"),
        ("the Edit button in Alice Chen", None),
    ]
    # The last " in " first: a name holding "in" keeps it.
    assert Target(words="the Sign in button in the header").splits()[0] == (
        "the Sign in button",
        "the header",
    )
    assert Target(words="Alice Chen的编辑按钮").splits()[0] == ("编辑按钮", "Alice Chen")
    # Quoted: the group is said outright; without it when the page lost that group.
    assert Target(words='"Log in" button in "Sign in"').splits() == [
        ("Log in button", "Sign in"),
        ("Log in button", None),
    ]


def test_a_hint_follows_the_words_and_quotes_protect_what_they_hold() -> None:
    step = parse_line('click "Save @ home" button in "Alice Chen" @ #save > b', 1)
    assert step is not None and step.target is not None
    assert step.target == Target(words='"Save @ home" button in "Alice Chen"', hint="#save > b")
    drag = parse_line('drag "Go to B" card @ #c1 to "Done" column @ [aria-label="to do"]', 1)
    assert drag is not None and drag.target is not None and drag.to is not None
    assert (drag.target.words, drag.target.hint) == ('"Go to B" card', "#c1")
    assert (drag.to.words, drag.to.hint) == ('"Done" column', '[aria-label="to do"]')


COMPILED = [
    "go to /contacts",
    'click "Edit" button in "Alice Chen" @ #edit-1',
    'type "He said \\"hi\\"" into "Job title" field in "Alice Chen" @ #title',
    'select "New York" in "Location" dropdown @ #location',
    "press Escape",
    'press Enter in "Search" search field @ #q',
    'hover "Help" button @ #help',
    'scroll to "Show archived" button @ body > div:nth-of-type(6) > p:nth-of-type(11) > button',
    'drag "Alice Chen" @ #tag to "Favourites" @ #drop',
    'upload "cv.pdf" to "Avatar" button @ #avatar',
    'wait for "Synced 3 contacts"',
    'expect "Saved Alice Chen"',
    'expect text containing "to be \\"saved\\""',
    'expect "Job title" field in "Alice Chen" @ #title to be "CTO"',
    'type "{{TOKEN}}" into "API token" field @ #token',
    "accept the next dialog",
    'done "14 rows, not counting the \\"id\\" header"',
    "done",
]


@pytest.mark.parametrize("line", COMPILED)
def test_steps_written_back_read_as_the_same_steps(line: str) -> None:
    step = parse_line(line, 1)
    assert step is not None
    assert format_step(step) == line
    again = parse_line(format_step(step), 1)
    assert again is not None
    assert (again.kind, again.target, again.to, again.value) == (
        step.kind,
        step.target,
        step.to,
        step.value,
    )


def test_the_expect_value_form_writes_its_hint_after_the_words() -> None:
    step = Step(
        kind="expect_value", target=Target(words='"Job title" field', hint="#t"), value="CTO"
    )
    assert format_step(step) == 'expect "Job title" field @ #t to be "CTO"'
    again = parse_line(format_step(step), 1)
    assert again is not None and again.target == step.target


def test_secrets_come_from_given_values_then_the_environment_and_a_missing_one_names_its_line() -> (
    None
):
    planner = StepsPlanner.from_text('click Edit\ntype "{{TOKEN}}" into the API token field\n')
    assert planner.secret_names() == {"TOKEN": 2}
    assert planner.secrets({"TOKEN": "a"}, environ={"TOKEN": "b"}) == {"TOKEN": "a"}
    assert planner.secrets(environ={"TOKEN": "b"}) == {"TOKEN": "b"}
    with pytest.raises(StepsError, match=r"^line 2: \{\{TOKEN\}\} needs a value: --secret TOKEN"):
        planner.secrets(environ={})


def test_a_steps_file_saved_with_a_byte_order_mark_reads_from_its_first_line(
    tmp_path: Path,
) -> None:
    # Notepad's "UTF-8 with BOM": the mark is no step and no part of the first line.
    path = tmp_path / "task.steps"
    path.write_bytes('# Alice\r\nclick the Save button\r\n确认 "已保存"\r\n'.encode("utf-8-sig"))
    planner = StepsPlanner.from_file(path)
    assert [(s.line, s.text) for s in planner.steps] == [
        (2, "click the Save button"),
        (3, '确认 "已保存"'),
    ]
