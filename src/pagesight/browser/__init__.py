"""The browser session: launching or attaching to Chromium, and its pages."""
