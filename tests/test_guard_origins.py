"""The origin policy's patterns (``allowed_origins``), as a pure value: which URLs each
pattern lets through, which patterns are refused, and what a refusal says. The browser's own
enforcement is in test_guard_origins_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import PAGES
from pagesight import InvalidOption, OriginNotAllowed
from pagesight.guard.origins import OriginPolicy, origin_of


def _allows(patterns: list[str], url: str) -> bool:
    return OriginPolicy.of(patterns).allows_origin(url)


def test_a_full_origin_allows_that_scheme_host_and_port_only() -> None:
    assert _allows(["https://example.com"], "https://example.com/a/b?c#d")
    assert _allows(["https://example.com"], "https://EXAMPLE.com:443/")
    assert not _allows(["https://example.com"], "http://example.com/")
    assert not _allows(["https://example.com"], "https://example.com:8443/")
    assert not _allows(["https://example.com"], "https://www.example.com/")
    assert _allows(["http://127.0.0.1:8000"], "http://127.0.0.1:8000/x")
    assert not _allows(["http://127.0.0.1:8000"], "http://127.0.0.1:8001/x")
    assert not _allows(["http://127.0.0.1:8000"], "http://localhost:8000/x")


def test_a_port_wildcard_allows_every_port_of_that_host() -> None:
    assert _allows(["http://127.0.0.1:*"], "http://127.0.0.1:5173/")
    assert _allows(["http://127.0.0.1:*"], "http://127.0.0.1/")
    assert not _allows(["http://127.0.0.1:*"], "https://127.0.0.1:5173/")
    assert not _allows(["http://127.0.0.1:*"], "http://127.0.0.2:5173/")


def test_a_subdomain_pattern_allows_subdomains_but_not_the_domain_itself() -> None:
    patterns = ["https://*.example.com"]
    assert _allows(patterns, "https://shop.example.com/")
    assert _allows(patterns, "https://a.b.example.com/")
    assert not _allows(patterns, "https://example.com/")  # as in a CSP source: list both
    assert not _allows(patterns, "https://badexample.com/")
    assert not _allows(patterns, "https://example.com.evil.net/")
    assert not _allows(patterns, "http://shop.example.com/")


def test_a_bare_host_allows_http_and_https_on_their_default_ports() -> None:
    assert _allows(["example.com"], "http://example.com/")
    assert _allows(["example.com"], "https://example.com/")
    assert not _allows(["example.com"], "https://example.com:8443/")
    assert _allows(["example.com:8443"], "https://example.com:8443/")
    assert _allows(["example.com:8443"], "http://example.com:8443/")
    assert not _allows(["example.com:8443"], "https://example.com/")


def test_hosts_are_compared_as_the_browser_writes_them() -> None:
    assert _allows(["HTTPS://Example.COM/"], "https://example.com/")  # case, a trailing /
    assert _allows(["https://bücher.de"], "https://xn--bcher-kva.de/")  # IDNA, as Chromium sends
    assert _allows(["http://[::1]:8000"], "http://[::1]:8000/")
    assert _allows(["http://127.0.0.1:*"], "ws://127.0.0.1:9000/socket")  # a WebSocket's origin
    assert not _allows(["http://127.0.0.1:*"], "wss://127.0.0.1:9000/socket")


def test_a_url_too_broken_to_name_its_origin_is_refused_not_raised() -> None:
    # The browser waits for the answer: an exception would leave the request paused for ever.
    policy = OriginPolicy.of(["http://127.0.0.1:*"])
    assert not policy.allows_request("http://[::1/")
    assert not policy.allows_request("http://127.0.0.1:99999/")


@pytest.mark.parametrize(
    "pattern",
    [
        "",
        "https://example.com/path",
        "https://example.com?q=1",
        "https://user@example.com",
        "ftp://example.com",
        "file:///tmp",
        "*",
        "https://*",
        "https://shop.*.com",
        "https://example.com:0",
        "https://example.com:70000",
        "https://example.com:http",
        "https://exa mple.com",
        "http://[::1",
    ],
)
def test_a_pattern_that_is_no_origin_is_refused_naming_it(pattern: str) -> None:
    with pytest.raises(InvalidOption) as caught:
        OriginPolicy.of([pattern])
    assert caught.value.option == "allowed_origins"
    assert repr(pattern.strip()) in str(caught.value) or repr(pattern) in str(caught.value)


def test_a_string_instead_of_a_list_is_refused() -> None:
    # A str is a Sequence of one-letter "origins": never what the caller meant.
    with pytest.raises(InvalidOption, match="list of origins") as caught:
        OriginPolicy.of("https://example.com")
    assert caught.value.option == "allowed_origins"


def test_local_files_need_allow_file_access_once_a_list_is_given() -> None:
    file_url = Path(PAGES / "form.html").as_uri()
    OriginPolicy.of(None).check(file_url)  # no list, no option: as pagesight always was
    OriginPolicy.of(None, True).check(file_url)
    OriginPolicy.of(["https://example.com"], allow_file_access=True).check(file_url)
    for policy in (OriginPolicy.of(["https://example.com"]), OriginPolicy.of(None, False)):
        with pytest.raises(OriginNotAllowed, match="allow_file_access") as caught:
            policy.check(file_url)
        assert caught.value.origin == "file://"
        # The browser's own pages, reached as about:…, are local too; about:blank never is.
        with pytest.raises(OriginNotAllowed):
            policy.check("about:version")
        policy.check("about:blank")


def test_a_typed_data_url_is_refused_once_a_list_is_given() -> None:
    OriginPolicy.of(None).check("data:text/html,<h1>hi</h1>")
    with pytest.raises(OriginNotAllowed, match="data: URL") as caught:
        OriginPolicy.of(["https://example.com"]).check("data:text/html,<h1>hi</h1>")
    assert caught.value.origin == "data:"
    # What a page makes itself is its content, not a navigation away from it.
    policy = OriginPolicy.of(["https://example.com"])
    assert policy.allows_request("data:text/html,x")
    assert policy.allows_request("blob:https://example.com/0b7d3c")
    assert policy.allows_request("about:srcdoc")
    assert not policy.allows_request("file:///etc/passwd")


def test_the_refusal_names_the_origin_the_list_and_what_to_do() -> None:
    policy = OriginPolicy.of(["http://127.0.0.1:*", "https://*.example.com"])
    with pytest.raises(OriginNotAllowed) as caught:
        policy.check("http://localhost:4001/login?next=/")
    message = str(caught.value)
    assert "http://localhost:4001" in message
    assert "http://127.0.0.1:*, https://*.example.com" in message
    assert "add it to allowed_origins" in message
    assert caught.value.allowed == ("http://127.0.0.1:*", "https://*.example.com")
    assert origin_of("https://example.com:443/x") == "https://example.com"
    assert origin_of("http://[::1]:8000/") == "http://[::1]:8000"


def test_a_typed_url_is_compared_as_chromium_will_send_it() -> None:
    # Typed in Unicode or with an IPv4 address's trailing dot, as a person writes them;
    # Chromium asks for xn--bcher-kva.de and 127.0.0.1, which the patterns allow.
    policy = OriginPolicy.of(["https://bücher.de", "http://127.0.0.1:8000"])
    policy.check("https://bücher.de/katalog")
    policy.check("https://BÜCHER.de/")
    policy.check("http://127.0.0.1.:8000/")
    assert policy.allows_origin("https://xn--bcher-kva.de/")
    # A domain's trailing dot is a host of its own to Chromium (and so not allowed here).
    with pytest.raises(OriginNotAllowed):
        policy.check("https://bücher.de./")
    with pytest.raises(OriginNotAllowed):
        policy.check("https://bucher.de/")


def test_a_blocked_origin_is_refused_whatever_else_is_allowed() -> None:
    only_blocked = OriginPolicy.of(blocked_origins=["https://*.ads.example"])
    assert only_blocked.restricts_network
    assert not only_blocked.allows_origin("https://x.ads.example/")
    assert only_blocked.allows_origin("https://example.com/")
    both = OriginPolicy.of(["https://*.example.com"], blocked_origins=["https://bad.example.com"])
    assert not both.allows_origin("https://bad.example.com/")
    assert not both.allows_origin("wss://bad.example.com/")  # its WebSocket too
    assert both.allows_origin("https://good.example.com/")
    with pytest.raises(OriginNotAllowed, match="blocked origin"):
        both.check("https://bad.example.com/")
    with pytest.raises(InvalidOption) as caught:
        OriginPolicy.of(blocked_origins=["ftp://x"])
    assert caught.value.option == "blocked_origins"


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",
        "169.254.169.254",
        "0.0.0.0",
        "::1",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1",
        "::",
    ],
)
def test_private_network_addresses_are_known(address: str) -> None:
    policy = OriginPolicy.of(["http://*.example.com"])
    assert not policy.allows_addresses([address])
    assert not policy.allows_addresses(["93.184.215.14", address])  # any one private
    assert policy.allows_addresses(["93.184.215.14", "2606:2800:21f:cb07::1"])
    assert not policy.allows_addresses([])  # a name that resolves to nothing


def test_a_private_address_loads_only_when_named_exactly() -> None:
    wide = OriginPolicy.of(["http://*.localhost:*", "http://*.example.com"])
    assert not wide.allows_origin("http://app.localhost:8000/")  # loopback by name
    assert wide.lookup_needed("http://app.localhost:8000/") is None  # no look-up needed
    # A name a wildcard allows is looked up before it loads; a name listed exactly is not.
    assert wide.lookup_needed("http://shop.example.com/") == "shop.example.com"
    exact = OriginPolicy.of(["http://intranet.example.com", "http://127.0.0.1:*", "[::1]:8000"])
    assert exact.lookup_needed("http://intranet.example.com/") is None
    assert exact.allows_origin("http://127.0.0.1:5000/")
    assert exact.allows_origin("http://[::1]:8000/")
    with pytest.raises(OriginNotAllowed, match="private-network address"):
        wide.check("http://app.localhost:8000/")
    assert OriginPolicy.of().lookup_needed("http://a.example.com/") is None  # no list


def test_websockets_are_held_to_the_allowed_list_by_a_csp() -> None:
    policy = OriginPolicy.of(["https://*.example.com", "http://127.0.0.1:*", "example.org"])
    assert policy.connect_sources() == (
        "connect-src http: https: data: blob: wss://*.example.com:443 ws://127.0.0.1:* "
        "ws://example.org:80 wss://example.org:443"
    )
    assert OriginPolicy.of(blocked_origins=["https://x.example"]).connect_sources() is None
