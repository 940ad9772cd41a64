"""The bundled demo: a sample page to observe."""
