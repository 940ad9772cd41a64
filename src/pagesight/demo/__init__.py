"""The bundled demo: Orbit CRM, a small web app with its state in SQLite (``OrbitApp``);
``DEMO_STEPS``, the task ``make demo`` runs on it with the steps planner; and ``sample.html``,
a page to observe."""

from pathlib import Path

from pagesight.demo.server import OrbitApp

DEMO_STEPS = Path(__file__).with_name("alice-chen.steps")
"""Find the contact Alice Chen, change her job title and location, save, confirm both."""

__all__ = ["DEMO_STEPS", "OrbitApp"]
