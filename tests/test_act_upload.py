"""Uploads: files set on a file input, on the label or button that opens a hidden one, and on
the chooser a click opens, as the page's own change handlers see them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import StaticServer
from pagesight import ActionError, InvalidOption  # type: ignore[attr-defined, unused-ignore]
from support import one


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for name, text in (("resume.txt", "Ada Lovelace, analyst"), ("a.png", "A"), ("b.png", "BB")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        made[name] = path
    return made


def _open(page: Any, server: StaticServer) -> Any:
    page.playwright.goto(server.url("act-upload.html"))
    return page.observe()


def _seen(page: Any, input_id: str) -> Any:
    return page.playwright.evaluate(f"window.uploads[{input_id!r}]")


def test_a_visible_file_input_takes_a_file_and_the_page_reads_it(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    resume = one(_open(page, server), "Resume", "button")
    assert "upload" in resume.actions
    eff = page.act(resume.id, "upload", files=str(files["resume.txt"]))
    # The page's own change handler ran on trusted events and read the file's name and text.
    seen = _seen(page, "resume")
    assert seen["events"] == ["input:true", "change:true"]
    assert seen["files"] == [{"name": "resume.txt", "text": "Ada Lovelace, analyst"}]
    assert eff.files == (files["resume.txt"],)
    assert "files: resume.txt" in eff.text()
    assert eff.to_dict()["files"] == [str(files["resume.txt"])]
    assert "value_change" in eff.kinds and "dom_change" in eff.kinds
    assert "resume: resume.txt (21 bytes)" in eff.texts_added
    assert eff.observation.element(resume.id).value == "resume.txt"


def test_a_hidden_input_behind_its_label_takes_several_files(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    photos = one(_open(page, server), "Upload photos", "button")  # the label is what shows
    assert "upload" in photos.actions
    eff = page.act(photos.id, "upload", files=[files["a.png"], files["b.png"]])
    assert [f["name"] for f in _seen(page, "photos")["files"]] == ["a.png", "b.png"]
    assert eff.files == (files["a.png"], files["b.png"])
    assert "files: a.png, b.png" in eff.text()
    assert eff.observation.element(photos.id).value == "a.png, b.png"


def test_a_button_that_opens_the_chooser_sets_the_files_through_it(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    obs = _open(page, server)
    browse = one(obs, "Choose documents", "button")
    assert "upload" in browse.actions  # beside the hidden input its click opens
    eff = page.act(browse.id, "upload", files=[files["a.png"], files["b.png"]])
    seen = _seen(page, "docs")
    assert seen["events"] == ["input:true", "change:true"]
    assert [f["text"] for f in seen["files"]] == ["A", "BB"]
    assert eff.files == (files["a.png"], files["b.png"])
    assert "docs: b.png (2 bytes)" in eff.texts_added
    assert page.playwright.evaluate("document.getElementById('status').textContent") == (
        "Files ready"
    )


def test_one_file_only_where_the_input_is_not_multiple(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    obs = _open(page, server)
    two = [files["a.png"], files["b.png"]]
    with pytest.raises(InvalidOption) as info:
        page.act(one(obs, "Resume").id, "upload", files=two)
    assert info.value.option == "files" and "one file" in str(info.value)
    with pytest.raises(InvalidOption):  # the hidden input a button opens: known before too
        page.act(one(obs, "Attach cover letter").id, "upload", files=two)
    assert _seen(page, "resume")["events"] == [] and _seen(page, "cover")["events"] == []
    page.act(one(obs, "Attach cover letter").id, "upload", files=files["a.png"])
    assert [f["name"] for f in _seen(page, "cover")["files"]] == ["a.png"]


def test_a_drop_zone_with_its_input_inside_takes_files_the_page_does_not_show(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    zone = one(_open(page, server), "Drag 'n' drop some files here, or click to select files")
    assert "upload" in zone.actions
    eff = page.act(zone.id, "upload", files=[files["a.png"], files["b.png"]])
    assert _seen(page, "dropped") == ["a.png:true", "b.png:true"]
    # Nothing on the page changed that an observation shows: the files are the value change.
    assert not eff.values and "value_change" in eff.kinds
    assert "files: a.png, b.png" in eff.text()


def test_a_web_components_button_offers_upload_to_its_hidden_input(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    browse = one(_open(page, server), "Browse component files", "button")
    assert "upload" in browse.actions  # its input is in the same shadow root
    eff = page.act(browse.id, "upload", files=files["a.png"])
    assert _seen(page, "component") == ["a.png:true"]
    assert eff.files == (files["a.png"],)


def test_an_input_made_on_click_and_removed_after_takes_one_file(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    add = one(_open(page, server), "Add attachment", "button")
    with pytest.raises(InvalidOption) as info:  # known only once its chooser opens: one file
        page.act(add.id, "upload", files=[files["a.png"], files["b.png"]])
    assert info.value.option == "files" and "one file" in str(info.value)
    assert _seen(page, "added") is None
    count = "document.querySelectorAll('input[type=file]').length"
    inputs = page.playwright.evaluate(count)
    eff = page.act(add.id, "upload", files=files["resume.txt"])
    assert _seen(page, "added") == ["resume.txt"]
    assert eff.files == (files["resume.txt"],)
    assert page.playwright.evaluate(count) == inputs  # made, given the file, removed


def test_a_file_of_a_type_the_input_does_not_accept_is_set_and_said(
    page: Any, server: StaticServer, files: dict[str, Path], tmp_path: Path
) -> None:
    contract = one(_open(page, server), "Signed contract")
    eff = page.act(contract.id, "upload", files=files["resume.txt"])
    # Chromium sets it (its own chooser would not offer it): the page gets it, the Effect says.
    assert [f["name"] for f in _seen(page, "contract")["files"]] == ["resume.txt"]
    assert eff.errors == (
        "resume.txt is of no type the file input accepts (.pdf, image/*); the page may refuse it",
    )
    assert "error: resume.txt is of no type" in eff.text()
    signed = tmp_path / "Signed.PDF"
    signed.write_bytes(b"%PDF-1.4")
    for fits in (signed, files["a.png"]):  # by its extension, or by its MIME type
        assert page.act(contract.id, "upload", files=fits).errors == ()


def test_a_missing_file_is_refused_before_the_page_is_touched(
    page: Any, server: StaticServer, files: dict[str, Path], tmp_path: Path
) -> None:
    resume = one(_open(page, server), "Resume")
    missing = tmp_path / "nowhere.pdf"
    with pytest.raises(InvalidOption) as info:
        page.act(resume.id, "upload", files=[files["a.png"], missing])
    assert info.value.option == "files" and str(missing) in str(info.value)
    with pytest.raises(InvalidOption) as needs:
        page.act(resume.id, "upload")
    assert needs.value.option == "files"
    with pytest.raises(InvalidOption):
        page.act(resume.id, "click", files=files["a.png"])
    assert _seen(page, "resume")["events"] == []


def test_a_forms_own_button_does_not_offer_the_forms_hidden_file_inputs(
    page: Any, server: StaticServer
) -> None:
    obs = _open(page, server)
    # The hidden inputs are in the form around it, beside other controls: not the button's own.
    # (Its upload would click it, submitting the form, and wait for a chooser that never opens.)
    assert "upload" not in one(obs, "Send application", "button").actions
    assert "upload" in one(obs, "Choose documents", "button").actions


def test_upload_on_something_that_opens_no_chooser_says_so(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    page.playwright.goto(server.url("act-links.html"))
    obs = page.observe()
    idle = next(el for el in obs.elements if el.role == "button")
    assert "upload" not in idle.actions
    with pytest.raises(ActionError) as info:
        page.act(idle.id, "upload", files=files["a.png"])
    assert info.value.reason == "unsupported_action" and "no file chooser" in str(info.value)


def test_batch_steps_take_the_new_options(
    page: Any, server: StaticServer, files: dict[str, Path]
) -> None:
    obs = _open(page, server)
    result = page.batch(
        [
            (one(obs, "Resume").id, "upload", {"files": str(files["resume.txt"])}),
            (one(obs, "Upload photos").id, "upload", {"files": [files["a.png"], files["b.png"]]}),
        ]
    )
    assert [s.status for s in result.steps] == ["done", "done"]
    assert [f["name"] for f in _seen(page, "photos")["files"]] == ["a.png", "b.png"]
    assert result.effect is not None and result.effect.files == (files["a.png"], files["b.png"])
    with pytest.raises(InvalidOption) as info:  # checked before any step runs
        page.batch([(one(obs, "Resume").id, "upload", {"file": "x"})])
    assert "files" in str(info.value)
