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
