"""Dates and times as people write them, in the format a date or time input takes.

``input`` on a ``date``, ``time``, ``datetime-local``, ``month`` or ``week`` input accepts the
control's own format (``2025-05-01``, ``13:45``, ``2025-05-01T13:45``, ``2025-05``,
``2025-W18``) and the usual human forms: ``05/01/2025``, ``1 May 2025``, ``May 1, 2025``,
``2025/05/01``, ``13:45``, ``1:45 pm``, ``May 2025``, ``week 18 2025``. A numeric date whose
first two parts could both be the month is read month first, as in US usage, unless the
page's ``lang`` names another language or region than English/US (``en-GB``, ``de``, ``fr``:
day first); a part over 12 settles it either way.
"""

from __future__ import annotations

import re
from datetime import date

DATE_TYPES = frozenset({"date", "time", "datetime-local", "month", "week"})
FORMATS = {
    "date": "YYYY-MM-DD (or 05/01/2025, 1 May 2025, May 1, 2025)",
    "time": "HH:MM, 24-hour (or 1:45 pm)",
    "datetime-local": "YYYY-MM-DDTHH:MM (or 05/01/2025 13:45, May 1, 2025 1:45 pm)",
    "month": "YYYY-MM (or May 2025, 05/2025)",
    "week": "YYYY-Www, such as 2025-W18 (or week 18 2025, or a date in that week)",
}
"""What each type takes, as error messages say it."""

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+)?"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_YEAR_FIRST = re.compile(r"(\d{4})[/.](\d{1,2})[/.](\d{1,2})")
_NUMERIC = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})")
_DAY_MONTH = re.compile(_WEEKDAY + _ORDINAL + r"\s+(?:of\s+)?" + _MONTH + r",?\s+(\d{4})")
_MONTH_DAY = re.compile(_WEEKDAY + _MONTH + r"\s+" + _ORDINAL + r",?\s+(\d{4})")
_TIME = re.compile(r"(\d{1,2})(?:[:.](\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?")
_MONTH_ONLY = (
    re.compile(r"(\d{4})-(\d{1,2})"),
    re.compile(r"(\d{1,2})[/.-](\d{4})"),
    re.compile(_MONTH + r",?\s+(\d{4})"),
)
_WEEK = (
    re.compile(r"(\d{4})-?w(\d{1,2})"),
    re.compile(r"(?:week|wk|w)\s*(\d{1,2}),?\s+(?:of\s+)?(\d{4})"),
    re.compile(r"(\d{4}),?\s+(?:week|wk|w)\s*(\d{1,2})"),
)


def control_value(text: str, kind: str, *, lang: str = "") -> str:
    """``text`` in the format of an input of type ``kind``; ``ValueError`` if it reads as no
    date or time of that kind."""
    said = " ".join(text.strip().lower().split())
    if kind == "date":
        return read_date(said, lang).isoformat()
    if kind == "time":
        return _read_time(said)
    if kind == "datetime-local":
        return _read_datetime(said, lang)
    if kind == "month":
        year, month = _read_month(said, lang)
        return f"{year:04d}-{month:02d}"
    if kind == "week":
        return _read_week(said, lang)
    raise ValueError(f"not a date or time input type: {kind!r}")


def day_first(lang: str) -> bool:
    """Whether numeric dates put the day first on a page in ``lang``: only US English (and
    a page that does not say) puts the month first."""
    lang = lang.lower()
    return bool(lang) and lang not in ("en", "en-us")


def read_date(said: str, lang: str) -> date:
    for pattern in (_ISO_DATE, _YEAR_FIRST):
        m = pattern.fullmatch(said)
        if m:
            return date(int(m[1]), int(m[2]), int(m[3]))
    m = _NUMERIC.fullmatch(said)
    if m:
        first, second, year = int(m[1]), int(m[2]), int(m[3])
        year += 2000 if year < 100 else 0
        swap = first > 12 or (day_first(lang) and second <= 12)
        day, month = (first, second) if swap else (second, first)
        return date(year, month, day)
    m = _DAY_MONTH.fullmatch(said)
    if m:
        return date(int(m[3]), _MONTHS[m[2]], int(m[1]))
    m = _MONTH_DAY.fullmatch(said)
    if m:
        return date(int(m[3]), _MONTHS[m[1]], int(m[2]))
    raise ValueError(f"{said!r} reads as no date")


def _read_time(said: str) -> str:
    if said in ("noon", "midday"):
        return "12:00"
    if said == "midnight":
        return "00:00"
    m = _TIME.fullmatch(said)
    if not m or (m[2] is None and m[4] is None):  # a bare "13" is no time
        raise ValueError(f"{said!r} reads as no time")
    hour, minute = int(m[1]), int(m[2] or 0)
    if m[4]:
        if not 1 <= hour <= 12:
            raise ValueError(f"{said!r}: {hour} is no hour on a 12-hour clock")
        hour = hour % 12 + (12 if m[4].startswith("p") else 0)
    if hour > 23 or minute > 59 or (m[3] is not None and int(m[3]) > 59):
        raise ValueError(f"{said!r} is no time of day")
    return f"{hour:02d}:{minute:02d}" + (f":{m[3]}" if m[3] is not None else "")


def _read_datetime(said: str, lang: str) -> str:
    m = re.fullmatch(r"(\d{4}-\d{1,2}-\d{1,2})t(\d{1,2}:\d{2}(?::\d{2})?)", said)
    if m:
        return f"{read_date(m[1], lang).isoformat()}T{_read_time(m[2])}"
    # The time is the end: "05/01/2025 13:45", "may 1, 2025 at 1:45 pm".
    m = re.fullmatch(
        r"(.+?),?\s+(?:at\s+)?(\d{1,2}(?::\d{2}){0,2}\s*(?:am|pm|a\.m\.|p\.m\.)?|noon|midnight)",
        said,
    )
    if not m:
        raise ValueError(f"{said!r} reads as no date and time")
    return f"{read_date(m[1], lang).isoformat()}T{_read_time(m[2])}"


def _read_month(said: str, lang: str) -> tuple[int, int]:
    for i, pattern in enumerate(_MONTH_ONLY):
        m = pattern.fullmatch(said)
        if m:
            year, month = (
                (int(m[1]), int(m[2]))
                if i == 0
                else (int(m[2]), int(m[1]))
                if i == 1
                else (int(m[2]), _MONTHS[m[1]])
            )
            if not 1 <= month <= 12:
                raise ValueError(f"{said!r}: {month} is no month")
            return year, month
    day = read_date(said, lang)  # a whole date names its month too
    return day.year, day.month


def _read_week(said: str, lang: str) -> str:
    for i, pattern in enumerate(_WEEK):
        m = pattern.fullmatch(said)
        if m:
            year, week = (int(m[1]), int(m[2])) if i != 1 else (int(m[2]), int(m[1]))
            last = date(year, 12, 28).isocalendar().week  # the 28th is always in the last week
            if not 1 <= week <= last:
                raise ValueError(f"{said!r}: {year} has weeks 1 to {last}")
            return f"{year:04d}-W{week:02d}"
    year, week, _ = read_date(said, lang).isocalendar()
    return f"{year:04d}-W{week:02d}"
