"""Fakes of the model services pagesight talks to, shipped for tests — pagesight's and yours.

Each is a real HTTP server on 127.0.0.1 (port 0, a context manager with ``.base_url``) that
speaks the service's real API, plays a script, records what it was sent, and can fail the ways
the service fails. Importing this package starts nothing.

* :mod:`pagesight.testing.decisions` — the Decisions API (``FakeDecisionsServer``).
"""
