# Set-up is idempotent: a venv in .venv, torch's CPU build first, then the project, each at
# the tested version (.ci/constraints.txt). torch comes from PyTorch's CPU wheel index (the
# default index gives Linux the multi-GB CUDA build); where that index cannot be reached
# (offline, a mirror) the plain pinned install runs instead, from whatever index pip is set to.
TORCH_CPU_INDEX ?= https://download.pytorch.org/whl/cpu
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN = $(VENV)/bin
CONSTRAINTS = .ci/constraints.txt

.PHONY: setup run test test-python test-plugin plugin bench dist smoke

$(BIN)/.installed: pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c $(CONSTRAINTS) --index-url $(TORCH_CPU_INDEX) --timeout 10 --retries 1 torch==2.13.0 \
		|| $(BIN)/pip install -q -c $(CONSTRAINTS) torch==2.13.0
	$(BIN)/pip install -q -c $(CONSTRAINTS) -e '.[dev]'
	touch $@

setup: $(BIN)/.installed

run: setup
	$(BIN)/mnemovault demo .demo-vault

test: test-plugin test-python

test-python: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

obsidian-plugin/node_modules/.installed: obsidian-plugin/package-lock.json
	cd obsidian-plugin && npm ci --no-audit --no-fund
	touch $@

test-plugin: setup obsidian-plugin/node_modules/.installed
	cd obsidian-plugin && npm run build && npm run typecheck && npm run lint && npm test && npm run test:contract

plugin: obsidian-plugin/node_modules/.installed
	cd obsidian-plugin && npm run build

# Release artifacts in dist/: the plugin's assets and zip (its version set to pyproject's
# first), then the sdist and the wheel built from it, which carries the built plugin and the
# MCP manifest (rewritten here: its serverInfo carries the version).
dist: setup obsidian-plugin/node_modules/.installed
	rm -rf dist
	cd obsidian-plugin && npm run release -- --out ../dist
	$(BIN)/python -m bridge.mcp_manifest
	$(BIN)/python -m build --outdir dist .
	$(BIN)/python .ci/wheel-smoke --contents-only dist

# The wheel alone in a fresh virtualenv outside the checkout (what CI runs).
smoke: dist
	$(BIN)/python .ci/wheel-smoke dist

bench: setup
	$(BIN)/mnemovault bench --notes 10000 --quick
