"""Orbit CRM's routes: a Starlette app over one SQLite file (``pagesight.demo.db``).

As real apps are, it is partly server-rendered and partly client-side: the contact forms (new
and edit), a delete, a message, a deal's owner and the settings are forms posted to the
server, answered with a redirect and a full page load; the contact search, notes and the deal
board fetch JSON and update the page where it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from pagesight.demo import db
from pagesight.demo.i18n import HTML_LANG, language, translator
from pagesight.demo.richtext import clean

HERE = Path(__file__).parent
# The labels the page scripts draw themselves (the rest is rendered here).
SCRIPT_TEXT = (
    "n_contacts",
    "one_contact",
    "no_contacts",
    "edit",
    "note_saved",
    "note_empty",
    "moved",
    "move_failed",
    "move_to",
    "move_deal",
    "dismiss",
    *(f"stage_{stage}" for stage in db.STAGES),
)
FIELD_ERRORS = {
    "name": "err_name",
    "email": "err_email",
    "location": "err_location",
    "team": "err_team",
    "follow_up": "err_date",
}


def _lang(request: Request) -> str:
    """The language the pages are in: the browser's ``lang`` cookie (the toggle sets it),
    else the one saved in the settings, which a new browser meets."""
    cookie = request.cookies.get("lang")
    if cookie is not None and language(cookie) == cookie:
        return cookie
    return language(db.settings(_path(request))["language"])


def _context(request: Request) -> dict[str, Any]:
    lang = _lang(request)
    t = translator(lang)
    return {
        "t": t,
        "lang": lang,
        "html_lang": HTML_LANG[lang],
        "path": request.url.path,
        "query": request.url.query,
        "script_text": {key: t(key) for key in SCRIPT_TEXT},
        "stages": db.STAGES,
        "locations": db.LOCATIONS,
        "teams": db.TEAMS,
    }


DESIGNS = ("default", "redesign")
"""The markups Orbit can be served in. ``redesign`` is the same app after a redesign (other ids
and classes, the edit form's fields in another order, wrappers added, two ids swapped) with
the same labels and behaviour: what a recorded run's hints meet when an app changes."""


def _templates(design: str) -> Jinja2Templates:
    # The redesign is a folder of its own that shadows only the pages it changes (the contact
    # list, the contact page, the edit form), rather than ``{% if %}`` through every template:
    # the default markup, which other tests and goldens read, stays byte for byte what it was,
    # and the redesign reads as one page's whole markup, as a real redesign is.
    folders = [HERE / "templates"]
    if design != "default":
        folders.insert(0, HERE / "templates" / design)
    return Jinja2Templates(
        env=jinja2.Environment(
            loader=jinja2.FileSystemLoader(folders),
            autoescape=True,  # every value is escaped unless a template says |safe (notes only)
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        ),
        context_processors=[_context],
    )


def _path(request: Request) -> Path:
    path: Path = request.app.state.db_path
    return path


def _render(request: Request, name: str, status_code: int = 200, **context: Any) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)  # after a POST: GET the new page


def _contact_or_404(request: Request) -> db.Contact:
    person = db.contact(_path(request), int(request.path_params["contact_id"]))
    if person is None:
        raise HTTPException(404)
    return person


async def home(request: Request) -> Response:
    return _redirect("/contacts")


async def contact_list(request: Request) -> Response:
    search = request.query_params.get("q", "")
    deleted = request.query_params.get("deleted")
    t = translator(_lang(request))
    return _render(
        request,
        "contacts.html",
        contacts=db.contacts(_path(request), search),
        search=search,
        toast=t("deleted", name=deleted) if deleted else None,
    )


async def contacts_api(request: Request) -> Response:
    found = db.contacts(_path(request), request.query_params.get("q", ""))
    return JSONResponse({"count": len(found), "contacts": [c.as_dict() for c in found]})


async def export_csv(request: Request) -> Response:
    return Response(
        db.contacts_csv(_path(request)),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="orbit-contacts.csv"'},
    )


async def contact_page(request: Request) -> Response:
    person = _contact_or_404(request)
    path = _path(request)
    return _render(
        request,
        "contact.html",
        contact=person,
        notes=db.notes(path, person.id),
        deals=[d for d in db.deals(path) if d["contact_id"] == person.id],
        toast=_saved_toast(request, person),
    )


def _saved_toast(request: Request, person: db.Contact) -> str | None:
    """The confirmation after a save (which fields changed and their new values), or after
    the contact was created."""
    saved = request.query_params.get("saved")
    t = translator(_lang(request))
    if saved is None:
        return t("created", name=person.name) if "created" in request.query_params else None
    fields = [field for field in saved.split(",") if field in db.EDITABLE]
    if not fields:
        return t("nothing_changed")
    values = person.as_dict()
    shown = []
    for field in fields:
        value = values[field]
        if field == "newsletter":
            value = t("yes") if value else t("no")
        shown.append(f"{t(field)} → {value or t('none')}")
    return f"{t('saved')}: " + "; ".join(shown)


async def edit_form(request: Request) -> Response:
    person = _contact_or_404(request)
    return _render(request, "edit.html", contact=person, values=person.as_dict(), errors={})


async def save_contact(request: Request) -> Response:
    person = _contact_or_404(request)
    values, messages = await _contact_form(request)
    if messages:
        return _render(
            request,
            "edit.html",
            status_code=400,
            contact=person,
            values={"id": person.id, **values},
            errors=messages,
        )
    changed = db.update_contact(_path(request), person.id, values)
    return _redirect(f"/contacts/{person.id}?saved={','.join(changed)}")


async def _contact_form(request: Request) -> tuple[dict[str, Any], dict[str, str]]:
    """The contact form's values as posted (the edit form's and the new-contact form's), and
    what is wrong with them, field → message in the page's language (empty: nothing)."""
    form = await request.form()
    values: dict[str, Any] = {
        field: str(form.get(field, "")).strip() for field in db.EDITABLE if field != "newsletter"
    }
    values["newsletter"] = form.get("newsletter") is not None
    t = translator(_lang(request))
    return values, {field: t(key) for field, key in _contact_errors(values).items()}


def _contact_errors(values: dict[str, Any]) -> dict[str, str]:
    """Field name → the translation key of what is wrong with it."""
    wrong = {
        "name": not values["name"],
        "email": bool(values["email"]) and "@" not in values["email"].strip("@"),
        "location": values["location"] not in db.LOCATIONS,
        "team": values["team"] not in db.TEAMS,
        "follow_up": bool(values["follow_up"]) and not db.valid_date(values["follow_up"]),
    }
    return {field: FIELD_ERRORS[field] for field, bad in wrong.items() if bad}


async def new_contact(request: Request) -> Response:
    values: dict[str, Any] = {field: "" for field in db.EDITABLE}
    values["newsletter"] = False
    return _render(request, "new.html", values=values, errors={})


async def create_contact(request: Request) -> Response:
    values, messages = await _contact_form(request)
    if messages:
        return _render(request, "new.html", status_code=400, values=values, errors=messages)
    contact_id = db.create_contact(_path(request), values)
    return _redirect(f"/contacts/{contact_id}?created=1")


async def delete_contact(request: Request) -> Response:
    person = _contact_or_404(request)
    db.delete_contact(_path(request), person.id)
    return _redirect(f"/contacts?deleted={quote(person.name)}")


async def profile(request: Request) -> Response:
    return _render(request, "profile.html", contact=_contact_or_404(request))


async def add_note(request: Request) -> Response:
    person = _contact_or_404(request)
    try:
        body = await request.json()
        html = str(body["html"])
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": 'expected JSON {"html": "…"}'}, status_code=400)
    kept, has_text = clean(html)
    if not has_text:
        return JSONResponse({"error": "the note is empty"}, status_code=400)
    return JSONResponse(db.add_note(_path(request), person.id, kept), status_code=201)


async def inbox(request: Request) -> Response:
    path = _path(request)
    every = db.messages(path)
    sent = request.query_params.get("sent", "")
    just_sent = next((m for m in every if sent.isdigit() and m["id"] == int(sent)), None)
    t = translator(_lang(request))
    return _render(
        request,
        "inbox.html",
        messages=every,
        toast=t("sent_to", name=just_sent["contact"]) if just_sent else None,
    )


async def compose(request: Request) -> Response:
    chosen = request.query_params.get("to", "")
    values = {"to": chosen, "subject": "", "body": ""}
    return _render(
        request, "compose.html", contacts=db.contacts(_path(request)), values=values, errors={}
    )


async def send_message(request: Request) -> Response:
    path = _path(request)
    form = await request.form()
    # A browser sends a textarea's line breaks as CRLF; keep them as typed.
    values = {
        key: str(form.get(key, "")).strip().replace("\r\n", "\n")
        for key in ("to", "subject", "body")
    }
    recipient = db.contact(path, int(values["to"])) if values["to"].isdigit() else None
    wrong = {"to": recipient is None, "subject": not values["subject"], "body": not values["body"]}
    if any(wrong.values()):
        t = translator(_lang(request))
        errors = {field: t(f"err_{field}") for field, bad in wrong.items() if bad}
        return _render(
            request,
            "compose.html",
            status_code=400,
            contacts=db.contacts(path),
            values=values,
            errors=errors,
        )
    assert recipient is not None
    message_id = db.send_message(path, recipient.id, values["subject"], values["body"])
    return _redirect(f"/messages?sent={message_id}")


async def deal_board(request: Request) -> Response:
    path = _path(request)
    users = db.users(path)
    wanted = request.query_params.get("owner", "")
    owner = next((u for u in users if str(u["id"]) == wanted), None)  # else every deal
    every = db.deals(path, owner["id"] if owner else None)
    columns = {stage: [d for d in every if d["stage"] == stage] for stage in db.STAGES}
    return _render(request, "deals.html", columns=columns, users=users, owner=owner)


def _deal_or_404(request: Request) -> dict[str, Any]:
    found = db.deal(_path(request), int(request.path_params["deal_id"]))
    if found is None:
        raise HTTPException(404)
    return found


async def deal_page(request: Request) -> Response:
    found = _deal_or_404(request)
    t = translator(_lang(request))
    saved = "saved" in request.query_params and found["owner"] is not None
    toast = t("deal_saved", name=found["owner"]) if saved else None
    return _render(
        request, "deal.html", deal=found, users=db.users(_path(request)), error=None, toast=toast
    )


async def save_deal(request: Request) -> Response:
    found = _deal_or_404(request)
    path = _path(request)
    form = await request.form()
    users = db.users(path)
    chosen = str(form.get("owner", ""))
    owner = next((u for u in users if str(u["id"]) == chosen), None)
    if owner is None:
        t = translator(_lang(request))
        return _render(
            request, "deal.html", status_code=400, deal=found, users=users, error=t("err_owner")
        )
    db.set_deal_owner(path, found["id"], owner["id"])
    return _redirect(f"/deals/{found['id']}?saved=1")


async def move_deal(request: Request) -> Response:
    try:
        body = await request.json()
        stage = str(body["stage"])
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": 'expected JSON {"stage": "…"}'}, status_code=400)
    if stage not in db.STAGES:
        return JSONResponse({"error": f"stage must be one of {', '.join(db.STAGES)}"}, 400)
    deal = db.move_deal(_path(request), int(request.path_params["deal_id"]), stage)
    if deal is None:
        return JSONResponse({"error": "no such deal"}, status_code=404)
    return JSONResponse(deal)


async def settings(request: Request) -> Response:
    t = translator(_lang(request))
    saved = request.query_params.get("saved") is not None
    return _render(
        request,
        "settings.html",
        settings=db.settings(_path(request)),
        toast=t("settings_saved") if saved else None,
    )


async def save_settings(request: Request) -> Response:
    """The settings page's form, or the header's language toggle (which says only the
    language: the notifications stay as they are)."""
    form = await request.form()
    lang = language(str(form.get("lang", "")))
    # An unchecked checkbox is not sent: the settings form says it is the one posting.
    notifications = form.get("email_notifications") is not None if "settings" in form else None
    db.save_settings(_path(request), language=lang, email_notifications=notifications)
    target = str(form.get("next", "")) or "/settings?saved=1"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/"):
        target = "/settings?saved=1"  # only ever back into this app
    response = _redirect(target)
    response.set_cookie("lang", lang, max_age=365 * 24 * 3600, samesite="lax")
    return response


async def not_found(request: Request, exc: Exception) -> Response:
    return _render(request, "not_found.html", status_code=404)


def create_app(db_path: Path, design: str = "default") -> Starlette:
    """The Orbit CRM app over the (already prepared) database at ``db_path``, its pages in
    ``design`` (one of ``DESIGNS``)."""
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}, not {design!r}")
    routes = [
        Route("/", home),
        Route("/contacts", contact_list),
        Route("/contacts", create_contact, methods=["POST"]),
        Route("/contacts/new", new_contact),
        Route("/contacts/export.csv", export_csv),
        Route("/contacts/{contact_id:int}", contact_page),
        Route("/contacts/{contact_id:int}/edit", edit_form),
        Route("/contacts/{contact_id:int}/edit", save_contact, methods=["POST"]),
        Route("/contacts/{contact_id:int}/delete", delete_contact, methods=["POST"]),
        Route("/contacts/{contact_id:int}/profile", profile),
        Route("/api/contacts", contacts_api),
        Route("/api/contacts/{contact_id:int}/notes", add_note, methods=["POST"]),
        Route("/messages", inbox),
        Route("/messages", send_message, methods=["POST"]),
        Route("/messages/new", compose),
        Route("/deals", deal_board),
        Route("/deals/{deal_id:int}", deal_page),
        Route("/deals/{deal_id:int}", save_deal, methods=["POST"]),
        Route("/api/deals/{deal_id:int}/stage", move_deal, methods=["POST"]),
        Route("/settings", settings),
        Route("/settings", save_settings, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={404: not_found})
    app.state.db_path = db_path
    app.state.templates = _templates(design)
    return app
