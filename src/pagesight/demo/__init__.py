"""The bundled demo: Orbit CRM, a small web app with its state in SQLite (``OrbitApp``), and
``sample.html``, a page to observe."""

from pagesight.demo.server import OrbitApp

__all__ = ["OrbitApp"]
