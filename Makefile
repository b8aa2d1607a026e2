# Set-up is idempotent: a venv in .venv, torch's local CPU build first, then the project.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: setup run test test-python test-plugin plugin bench

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/.installed

run: setup
	$(BIN)/mnemovault demo .demo-vault

test: test-plugin test-python

test-python: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

obsidian-plugin/node_modules/.installed: obsidian-plugin/package-lock.json
	cd obsidian-plugin && npm ci --no-audit --no-fund
	touch $@

test-plugin: setup obsidian-plugin/node_modules/.installed
	cd obsidian-plugin && npm run build && npm run typecheck && npm run lint && npm test && npm run test:contract

plugin: obsidian-plugin/node_modules/.installed
	cd obsidian-plugin && npm run build

bench: setup
	$(BIN)/mnemovault bench --notes 10000 --quick
