"""OriginPolicy: which origins a browser may load, as a pure value (no browser here).

Patterns (``allowed_origins``, and ``blocked_origins``, which are refused whatever else is
allowed):

* ``https://example.com`` — that scheme, host and default port (443) only;
* ``http://127.0.0.1:8000`` — that port;
* ``http://127.0.0.1:*`` — any port of that host;
* ``https://*.example.com`` — any subdomain, at any depth, but not ``example.com`` itself
  (as in a Content-Security-Policy source: list both to allow both);
* ``example.com`` (no scheme) — http or https, each on its default port; ``example.com:8080``
  — http or https on that port.

A pattern is an origin, so a path (other than a lone ``/``), a query, a fragment or a user
name is refused with :class:`~pagesight.errors.InvalidOption`, as is a wildcard anywhere but a
leading ``*.`` label or the port.

Private network. Once ``allowed_origins`` is set, an address of the machine's own or of its
network — loopback (``127.0.0.0/8``, ``::1``, ``localhost`` and ``*.localhost``), RFC 1918
(``10/8``, ``172.16/12``, ``192.168/16``), shared (``100.64/10``), link-local (``169.254/16``,
among them the cloud metadata service ``169.254.169.254``; ``fe80::/10``), unique-local
(``fc00::/7``), ``0.0.0.0`` and ``::`` (both reach this machine) — is refused unless a pattern
names that host exactly (``http://127.0.0.1:*``, ``http://intranet.example:8080``): a
``*.`` wildcard never lets one through. A *name* allowed only by a wildcard is looked up
first, and refused when it resolves to such an address (or to nothing). The look-up is the
operating system's, made just before Chromium's own: a name whose record changes in between
(DNS rebinding with a zero TTL) is not caught, and Chromium's ``--host-resolver-rules`` are
not seen.

What is not a network origin:

* ``file://`` (and the browser's own pages reached as ``about:…``, such as ``about:version``)
  are local: opened only with ``allow_file_access``. Its default (``None``) keeps what
  pagesight always did when no list is given (local files open) and refuses them once a list
  is given; ``False`` refuses them even with no list (the MCP server's default).
* ``about:blank`` and ``about:srcdoc`` are always fine: they load nothing.
* ``data:`` typed as a page to open is refused once a list is given: its content comes from
  whoever typed it (a model, a page's text read by one), not from an allowed server. A page's
  own ``data:``, ``blob:`` and ``about:blank`` documents (an iframe, a tab it opened and wrote)
  are the page's content, not a navigation away from it, and are left alone — Chromium already
  refuses a page's own top-level navigation to a ``data:`` URL.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from pagesight.errors import InvalidOption, OriginNotAllowed

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_WEB_SCHEMES = {"ws": "http", "wss": "https"}  # a WebSocket's origin is its http twin
_ANY_PORT = -1
_BLANK = ("about:blank", "about:srcdoc")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._")

RefusedKind = Literal["navigation", "new_tab", "frame"]

# Addresses of this machine or of its network beside those ipaddress calls private.
_SHARED = ipaddress.ip_network("100.64.0.0/10")  # carrier-grade NAT (RFC 6598)


@dataclass(frozen=True, kw_only=True)
class OriginPattern:
    """One entry of ``allowed_origins``, parsed."""

    text: str
    """As given."""
    scheme: str | None
    """``http`` or ``https``; ``None``: either."""
    host: str
    """Lower case, IDNA-encoded; without the ``*.`` of a subdomain pattern."""
    subdomains: bool
    port: int | None
    """``None``: the scheme's default port; ``-1``: any port."""

    @classmethod
    def parse(cls, text: str) -> OriginPattern:
        if not isinstance(text, str) or not text.strip():
            raise _bad(text, "an origin such as https://example.com")
        given = text.strip()
        scheme: str | None = None
        rest = given
        if "://" in given:
            scheme, rest = given.split("://", 1)
            scheme = scheme.lower()
            if scheme == "file":
                raise _bad(text, "local files are not an origin: pass allow_file_access=True")
            if scheme not in ("http", "https"):
                raise _bad(text, f"scheme {scheme!r}: an origin is http:// or https://")
        rest = rest.removesuffix("/")
        if any(c in rest for c in "/?#@\\") or not rest:
            raise _bad(text, "an origin is a scheme, a host and a port: no path, query or user")
        host, port = _split_port(text, rest)
        subdomains = host.startswith("*.")
        host = host.removeprefix("*.")
        return cls(
            text=given, scheme=scheme, host=_host(text, host), subdomains=subdomains, port=port
        )

    def matches(self, scheme: str, host: str, port: int) -> bool:
        """Whether the origin (``scheme``, lower-case ``host``, ``port``) is this pattern's."""
        if self.scheme is not None and scheme != self.scheme:
            return False
        if self.port == _ANY_PORT:
            pass
        elif port != (self.port if self.port is not None else _DEFAULT_PORTS[scheme]):
            return False
        if self.subdomains:
            return host.endswith("." + self.host)
        return host == self.host

    def names(self, host: str) -> bool:
        """Whether this pattern names ``host`` itself (not through a ``*.`` wildcard)."""
        return not self.subdomains and host == self.host

    def websocket_sources(self) -> list[str]:
        """This pattern's WebSocket twins (``ws:`` for http, ``wss:`` for https) as
        Content-Security-Policy sources."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        host = f"*.{host}" if self.subdomains else host
        out = []
        for scheme in [self.scheme] if self.scheme else ["http", "https"]:
            if self.port == _ANY_PORT:
                port = "*"
            else:
                port = str(self.port if self.port is not None else _DEFAULT_PORTS[scheme])
            out.append(f"{'wss' if scheme == 'https' else 'ws'}://{host}:{port}")
        return out


@dataclass(frozen=True, kw_only=True)
class Refused:
    """A document the origin policy kept from loading, as an :class:`Effect` reports it."""

    kind: RefusedKind
    """``navigation``: the tab was kept on its page; ``new_tab``: a tab the page opened to it,
    closed; ``frame``: an iframe's document (the frame stays empty)."""
    url: str
    origin: str

    @property
    def top_level(self) -> bool:
        """A navigation of a tab (or a tab opened for it), not an iframe's."""
        return self.kind != "frame"

    def text(self) -> str:
        if self.kind == "navigation":
            return f"navigation to {self.origin} (origin not allowed)"
        if self.kind == "new_tab":
            return f"new tab to {self.origin} (origin not allowed; the tab was closed)"
        return f"frame {self.origin} (origin not allowed)"

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "url": self.url, "origin": self.origin}


@dataclass(frozen=True, kw_only=True)
class OriginPolicy:
    """Which origins may be loaded. Make one with :meth:`of`; ``OriginPolicy()`` allows all."""

    allowed: tuple[OriginPattern, ...] | None = None
    """``None``: every origin (no list given)."""
    blocked: tuple[OriginPattern, ...] = ()
    """Refused whatever ``allowed`` says."""
    file_access: bool = True
    """Whether ``file://`` URLs (and the browser's own ``about:`` pages) may be opened."""

    @classmethod
    def of(
        cls,
        allowed_origins: Sequence[str] | None = None,
        allow_file_access: bool | None = None,
        blocked_origins: Sequence[str] | None = None,
    ) -> OriginPolicy:
        """The policy of the ``allowed_origins``, ``allow_file_access`` and
        ``blocked_origins`` options; a bad pattern raises InvalidOption naming it."""
        if allow_file_access is not None and not isinstance(allow_file_access, bool):
            raise InvalidOption(
                "allow_file_access",
                f"allow_file_access takes True or False, not {allow_file_access!r}",
            )
        blocked = _patterns("blocked_origins", blocked_origins) or ()
        allowed = _patterns("allowed_origins", allowed_origins)
        if allowed is None:
            return cls(blocked=blocked, file_access=allow_file_access is not False)
        return cls(allowed=allowed, blocked=blocked, file_access=bool(allow_file_access))

    @property
    def restricts_network(self) -> bool:
        """A list was given: the browser must check every request it makes."""
        return self.allowed is not None or bool(self.blocked)

    def listed(self) -> str:
        """The allowed list as a message quotes it."""
        if self.allowed is None:
            return "every origin"
        return ", ".join(p.text for p in self.allowed) or "none"

    def allows_origin(self, url: str) -> bool:
        """Whether a network request to ``url`` (http, https, ws, wss) may go out, as far as
        its URL tells (a name allowed only by a wildcard is looked up too: see
        :meth:`lookup_needed`)."""
        return self._why_not(url) is None

    def lookup_needed(self, url: str) -> str | None:
        """The host name of ``url`` to look up before it may load (private network): a name
        this policy allows only through a ``*.`` wildcard; ``None`` when the URL says enough."""
        if self.allowed is None:
            return None
        origin = _split_origin(url)
        if origin is None:
            return None
        scheme, host, port = origin
        if _is_ip(host) or _loopback_name(host):
            return None
        if any(p.names(host) for p in self.allowed if p.matches(scheme, host, port)):
            return None
        return host

    def allows_addresses(self, addresses: Sequence[str]) -> bool:
        """Whether a name that :meth:`lookup_needed` named, found at ``addresses``, may load:
        none of them private, and at least one (a name that resolves to nothing is refused:
        Chromium might resolve it otherwise)."""
        return bool(addresses) and not any(private_address(a) for a in addresses)

    def allows_request(self, url: str) -> bool:
        """Whether the browser may load ``url`` for a page (a link, a redirect, an iframe, a
        script's request) as far as its URL tells; never raises (the browser waits on the
        answer)."""
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme in _DEFAULT_PORTS:
            return self.allows_origin(url)
        if scheme == "file":
            return self.file_access
        # data:, blob:, about: and the like load nothing from the network.
        return True

    def connect_sources(self) -> str | None:
        """The Content-Security-Policy ``connect-src`` directive that holds a page's
        WebSockets to the allowed list (the DevTools ``Fetch`` domain never sees them):
        every http(s) connection passes it, to be checked (and counted) by the guard, a
        WebSocket only to an allowed origin. ``None`` with no allowed list (a block list is
        no CSP source list)."""
        if self.allowed is None:
            return None
        sources = ["http:", "https:", "data:", "blob:"]
        for pattern in self.allowed:
            sources += pattern.websocket_sources()
        return "connect-src " + " ".join(dict.fromkeys(sources))

    def check(self, url: str) -> None:
        """Raise :class:`~pagesight.errors.OriginNotAllowed` unless ``url`` may be opened as a
        page by the caller (``navigate``, ``open``): before the page is touched."""
        scheme = urlsplit(url).scheme.lower()
        blank = url.split("#", 1)[0].split("?", 1)[0] in _BLANK
        if blank or scheme in ("http", "https"):
            allowed = blank or self.allows_origin(url)
            message = ""
        elif scheme in ("file", "about"):
            allowed = self.file_access
            message = (
                f"{url} is local (a file or one of the browser's own pages), and local files "
                "are refused; pass allow_file_access=True (--allow-file-access) to open them"
            )
        elif scheme == "data":
            allowed = self.allowed is None
            message = (
                "a data: URL cannot be opened as a page while allowed_origins is set (its "
                "content comes from the caller, not from an allowed server)"
            )
        else:
            allowed = self.allowed is None
            message = ""
        if not allowed:
            raise self.refusal(url, message)

    def refusal(self, url: str, message: str = "") -> OriginNotAllowed:
        """The error saying that ``url`` was refused."""
        origin = origin_of(url)
        listed = tuple(p.text for p in self.allowed or ())
        why = self._why_not(url)
        if message:
            text = message
        elif why == "blocked":
            blocked = ", ".join(p.text for p in self.blocked)
            text = (
                f"{origin} is a blocked origin (blocked_origins: {blocked}); remove it from "
                "blocked_origins to open it"
            )
        elif why == "private" or (why is None and self.lookup_needed(url)):
            text = (
                f"{origin} is a private-network address (or a name that resolves to one), "
                f"refused while allowed_origins is set (allowed: {self.listed()}); name that "
                "host exactly in allowed_origins to open it"
            )
        else:
            text = (
                f"{origin} is not an allowed origin (allowed: {self.listed()}); add it to "
                "allowed_origins to open it"
            )
        return OriginNotAllowed(text, url=url, origin=origin, allowed=listed)

    def _why_not(self, url: str) -> Literal["blocked", "private", "unlisted"] | None:
        origin = _split_origin(url)
        if origin is None:
            return "unlisted" if self.allowed is not None or self.blocked else None
        scheme, host, port = origin
        if any(p.matches(scheme, host, port) for p in self.blocked):
            return "blocked"
        if self.allowed is None:
            return None
        matching = [p for p in self.allowed if p.matches(scheme, host, port)]
        if not matching:
            return "unlisted"
        private = _loopback_name(host) or (_is_ip(host) and private_address(host))
        if private and not any(p.names(host) for p in matching):
            return "private"
        return None


def private_address(address: str) -> bool:
    """Whether ``address`` (an IPv4 or IPv6 address) is this machine's or its network's, not
    the internet's: loopback, RFC 1918, shared, link-local (the cloud metadata service),
    unique-local, unspecified; an IPv4 address written as IPv6 counts as itself."""
    try:
        ip = ipaddress.ip_address(address.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_unspecified
        or (isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED)
    )


def _split_origin(url: str) -> tuple[str, str, int] | None:
    """(``http`` or ``https``, canonical host, port) of a network URL; a WebSocket's as its
    http twin; ``None`` for what is no network origin (or cannot be read)."""
    try:
        parts = urlsplit(url)
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 0)
    except ValueError:  # a bad IPv6 host, a port out of range: nothing listed matches
        return None
    scheme = parts.scheme.lower()
    host = _canonical_host(parts.hostname or "")
    scheme = _WEB_SCHEMES.get(scheme, scheme)
    if scheme not in ("http", "https") or not host:
        return None
    return scheme, host, port


def _patterns(option: str, given: Sequence[str] | None) -> tuple[OriginPattern, ...] | None:
    if given is None:
        return None
    if isinstance(given, str | bytes) or not isinstance(given, Sequence):
        raise InvalidOption(
            option,
            f"{option} takes a list of origins such as ['https://example.com'], not {given!r}",
        )
    try:
        return tuple(OriginPattern.parse(p) for p in given)
    except InvalidOption as exc:
        if option == exc.option:
            raise
        raise InvalidOption(option, str(exc).replace(exc.option, option, 1)) from None


def _loopback_name(host: str) -> bool:
    """``localhost`` and its subdomains: loopback by name (RFC 6761; Chromium resolves them
    itself)."""
    return host in ("localhost", "localhost.") or host.endswith((".localhost", ".localhost."))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL (the port only when it is not the default), or the
    scheme alone (``file://``, ``data:``) for what has no host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        return "file://"
    if not parts.hostname:
        return f"{scheme}:" if scheme else url
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    try:
        port = parts.port
    except ValueError:
        port = None
    shown = f":{port}" if port is not None and port != _DEFAULT_PORTS.get(scheme) else ""
    return f"{scheme}://{host}{shown}"


def _canonical_host(host: str) -> str:
    """``host`` as Chromium sends it, which is how patterns hold theirs: lower case,
    IDNA-encoded (a URL typed as ``https://bücher.de``), an IPv4 address without the trailing
    dot Chromium drops (a domain keeps its dot: to Chromium that is another host)."""
    host = host.lower()
    if host.endswith(".") and _is_ipv4(host[:-1]):
        return host[:-1]
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:  # not a host name Chromium could send: nothing listed matches it
        return host


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def _split_port(text: str, rest: str) -> tuple[str, int | None]:
    if rest.startswith("["):  # an IPv6 address: [::1] or [::1]:8000
        end = rest.find("]")
        if end < 0:
            raise _bad(text, "an IPv6 address closes with ]")
        host, tail = rest[: end + 1], rest[end + 1 :]
        if tail and not tail.startswith(":"):
            raise _bad(text, "a port follows the IPv6 address after a colon")
        port = tail[1:] if tail else None
    else:
        host, colon, port_text = rest.partition(":")
        port = port_text if colon else None
    if port is None:
        return host, None
    if port == "*":
        return host, _ANY_PORT
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise _bad(text, f"port {port!r}: a number from 1 to 65535, or *")
    return host, int(port)


def _host(text: str, host: str) -> str:
    if host.startswith("[") and host.endswith("]"):
        inner = host[1:-1].lower()
        if not inner or any(c not in "0123456789abcdef:." for c in inner):
            raise _bad(text, f"{host} is not an IPv6 address")
        return inner
    if "*" in host:
        raise _bad(text, "a wildcard is allowed only as a leading *. label or as the port")
    try:
        encoded = host.encode("idna").decode("ascii").lower()
    except UnicodeError as exc:
        raise _bad(text, f"{host!r} is not a host name") from exc
    labels = encoded.split(".")
    if not encoded or any(not label for label in labels) or set(encoded) - _HOST_CHARS:
        raise _bad(text, f"{host!r} is not a host name")
    return encoded


def _bad(text: object, why: str) -> InvalidOption:
    return InvalidOption("allowed_origins", f"allowed_origins: {text!r} is not an origin ({why})")
