# Two entry points, each installing what it needs (idempotently) before it runs.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test eval lint bench bench-act bench-vision bench-agent bench-mcp bench-load setup system

# The whole product on a fresh machine, offline: Orbit CRM on 127.0.0.1, the steps planner
# doing the Alice Chen task, a report to open.
demo: setup
	$(VENV)/bin/pagesight demo

# In parallel, one Chromium per worker; a module's tests stay on one worker so its shared
# fixtures (a CLI run, a browser of its own) start once. Four workers even on two cores: a
# browser test spends half its time waiting for a page to go quiet, so two workers left the
# cores half idle (9 min 41 s with 2 workers, 7 min 44 s with 4, on 2 cores).
test: setup lint
	$(PY) -m pytest -q -n 4 --dist loadscope

# The bundled task suite, offline: Orbit CRM's ten tasks, each from a fresh app, with the steps
# planner, two at a time; the files land in evals/<UTC time>-orbit.
eval: setup
	$(VENV)/bin/pagesight eval orbit --workers 2

# lint-imports: the layers of pyproject's [tool.importlinter] import one way, down, and no
# package has an import cycle, counting imports under TYPE_CHECKING and inside functions.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

bench: setup
	$(PY) benchmarks/observe.py

bench-act: setup
	$(PY) benchmarks/act.py

bench-vision: setup
	$(PY) benchmarks/vision.py

bench-agent: setup
	$(PY) benchmarks/agent.py

# pagesight's MCP server beside Playwright's own (@playwright/mcp from npm, into
# benchmarks/node_modules, on the same Debian Chromium: no browser download).
bench-mcp: setup
	$(PY) benchmarks/mcp_servers.py

# 8 tabs of one browser acted on at once for 5 minutes: ids, effects, errors and memory.
bench-load: setup
	$(PY) benchmarks/load.py

setup: system $(STAMP)

# Debian packages: Chromium (never a Playwright browser download) and CJK fonts so
# Chinese/Japanese/Korean text lays out like on a real desktop; Tesseract with English and
# Simplified Chinese data for the vision fallback's OCR.
system:
	@command -v chromium >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk; }
	@command -v tesseract >/dev/null 2>&1 || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim; }

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)
