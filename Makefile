# Build and test the multi-LoRA course.   make book  |  make test   (see README.md)
# Every target is idempotent: a second run only redoes what changed.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
# requirements-real.txt (torch pinned, peft, transformers) and requirements-lite.txt
# (JupyterLite) are installed with the main requirements in ONE pip command, so the
# resolver keeps the pinned CPU torch and one consistent set of widget versions.
REQS := requirements.txt $(wildcard requirements-real.txt requirements-lite.txt)
STAMP := $(VENV)/.requirements.stamp
NODE_STAMP := node_modules/.npm-ci.stamp
VENDOR := _build/_vendor
VENDOR_STAMP := $(VENDOR)/.copied.json
SITE := _build/html/index.html
CHROMIUM := /usr/bin/chromium
# Every input of the site: chapters, the library, the site plumbing, the Lite build, the demo results.
BOOK_SOURCES := _config.yml _toc.yml pyproject.toml requirements-lite.txt $(shell find book labcore coursebuild scripts lab results -type f \
	-not -path '*/.*' -not -path '*/__pycache__/*' -not -name '*.pyc' 2>/dev/null)
# One worker per core; --dist loadfile keeps each notebook (and each browser session) in one process;
# --no-loadscope-reorder keeps the collection order, which starts the longest module (the live chapters,
# moved first by tests/lite/conftest.py) at once instead of after the files with the most tests.
PYTEST_ARGS ?= -n 2 --dist loadfile --no-loadscope-reorder
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Notebook kernels inherit this environment: keep the inline backend (figures in
# outputs) and keep Hugging Face libraries off the network.
unexport MPLBACKEND
export HF_HUB_OFFLINE := 1
export HF_HUB_DISABLE_PROGRESS_BARS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help install book rebuild execute test test-quick lint lab serve chromium clean distclean engines engines-lorax decks-pdf

help:
	@echo "make book        build the course into $(SITE) (fails on any warning)"
	@echo "make test        build the book, then run every test (unit, nbval over book/, browser)"
	@echo "make test-quick  lint, unit tests + nbval: no book build, no browser, no test marked slow"
	@echo "make lint        ruff (lint and format check) and mypy, as pyproject.toml configures them"
	@echo "make rebuild     rebuild the book even if nothing changed"
	@echo "make execute     re-execute every chapter and store its outputs (then review the diff)"
	@echo "make lab         open the chapters live in JupyterLab"
	@echo "make serve       serve the built site to a room from this laptop, gzip-compressed (PORT=8000; prints the address)"
	@echo "make decks-pdf   print every deck to _build/decks-pdf/<deck>.pdf, one slide per page (a presenter's backup)"
	@echo "make engines     read the vLLM and SGLang release wheels into labcore/data/engines and run every printed"
	@echo "                 command through each engine's own parser (several GB once; not part of make test)"
	@echo "make engines-lorax LORAX_REPO=DIR  read LoRAX at its release tag from a git clone"
	@echo "make clean       remove _build/ and the fetched Vega/MathJax assets"
	@echo "make distclean   make clean, and remove the .venv"

install: $(STAMP)

$(STAMP): $(REQS) pyproject.toml coursebuild/pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null \
	  && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --no-compile $(addprefix -r ,$(REQS))
	@# Byte-compile the environment once, on both cores (pip would do it on one): every kernel, pytest worker and
	@# subprocess then loads .pyc files instead of compiling its imports again, which matters where
	@# PYTHONDONTWRITEBYTECODE is set (import torch, matplotlib, nbformat: 9.8 s from source, 4.6 s compiled).
	@# The only file it cannot compile is a Python 3.12 test module of torch that nothing imports.
	@$(BIN)/python -m compileall -q -j 0 $$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))') \
	  >/dev/null 2>&1 || true
	@touch $@

# Headless Chromium for the browser tests, from Debian, only if it is missing.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  echo "installing Debian chromium (browser tests)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver >/dev/null; \
	fi

# The browser libraries (Vega, MathJax, reveal.js, Pyodide, axe-core, ...): package.json pins them and
# package-lock.json holds their integrity hashes; `npm ci` installs exactly that into node_modules/, again only
# when the lock changes (coursebuild.vendor runs it and writes the stamp; a plain `jupyter-book build .` runs it
# too, through coursebuild.panels_site). Then the files the pages and decks load are copied into $(VENDOR).
$(NODE_STAMP): package.json package-lock.json
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm >/dev/null; }
	$(PYTHON) -m coursebuild.vendor --npm-ci
	@touch $@

$(VENDOR_STAMP): $(NODE_STAMP) coursebuild/vendor.py
	$(PYTHON) -m coursebuild.vendor --dest $(VENDOR)
	@touch $@

book: $(SITE)

$(SITE): $(STAMP) $(VENDOR_STAMP) $(BOOK_SOURCES)
	rm -rf _build/html _build/jupyter_execute _build/.doctrees
	$(BIN)/jupyter-book build --all -W -n --keep-going .
	@test -f $@
	@echo "The course is at $(abspath $@)"

# The book renders the outputs stored in the notebooks (make test re-executes and compares them);
# after changing labcore, re-execute the chapters here and review what changed before committing.
execute: $(STAMP)
	cd book && ls *.ipynb | xargs -P 2 -I{} ../$(BIN)/jupyter nbconvert --to notebook --execute \
	  --inplace --ExecutePreprocessor.timeout=900 --ExecutePreprocessor.record_timing=False {}

rebuild:
	@rm -f $(SITE)
	@$(MAKE) --no-print-directory book

# The course's own .pyc, written once before the run: with PYTHONDONTWRITEBYTECODE set (as on these machines), every
# worker, notebook kernel and subprocess would otherwise compile each changed module again.
COMPILE := $(BIN)/python -m compileall -q labcore coursebuild lab tests scripts benchmarks >/dev/null
# pytest with the variable cleared: it keeps its assertion-rewritten test modules in __pycache__ only when bytecode
# may be written (rewriting the 171 test modules cost each worker about 2 s of collection on every run).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

test: $(SITE) chromium
	@$(COMPILE)
	@$(MAKE) --no-print-directory lint  # ruff (F811: no test module defines a test twice) and mypy, zero findings
	$(PYTEST) $(PYTEST_ARGS)

# ruff (lint, then the formatter's check) and mypy, as pyproject.toml configures them; .pre-commit-config.yaml runs
# the same three on a commit's files.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# tests/browser/conftest.py marks every test there browser: the folder is left out before its modules are imported.
test-quick: $(STAMP)
	@$(COMPILE)
	@$(MAKE) --no-print-directory lint
	$(PYTEST) -m "not browser and not slow" --ignore=tests/browser $(PYTEST_ARGS)

# The engines' facts at the releases the course cites (labcore/engines/releases.py RELEASES): pip download each
# wheel once into ENGINE_CACHE (vLLM 0.33.0 is 336 MB, SGLang 0.5.23 39 MB), read its source without importing it,
# and write labcore/data/engines/<engine>-<version>-<date>.json; make test checks the course against those files.
# Then every command the plan prints goes through each engine's own parser (scripts/engine_parsers.py): the release
# pip-installed once into ENGINE_CACHE/venv-<engine>-<version> (vLLM 9.5 GB with its CUDA torch, SGLang 11 GB;
# both import on this CPU, with VLLM_TARGET_DEVICE=cpu for vLLM), verdicts in labcore/data/engines/parsed/<engine>-<version>-<date>.json.
ENGINE_CACHE ?= $(HOME)/.cache/labcore-engines
engines:
	$(BIN)/python scripts/engine_facts.py --cache $(ENGINE_CACHE) --out labcore/data/engines
	$(BIN)/python scripts/engine_parsers.py --cache $(ENGINE_CACHE)
	@git diff --stat -- labcore/data/engines || true

# LoRAX (TAGGED_RELEASES: a Rust launcher, no PyPI package) is read at its release tag from a git clone of
# predibase/lorax: make engines-lorax LORAX_REPO=/path/to/clone (git show only; writes lorax-<version>-<date>.json).
engines-lorax:
	$(BIN)/python scripts/lorax_facts.py --repo $(LORAX_REPO) --tag v0.12.1 --out labcore/data/engines

# Every deck of the built site printed to PDF, one slide per page (reveal.js's print view in headless Chromium).
decks-pdf: $(SITE) chromium
	$(BIN)/python -m coursebuild.deck_pdf --site _build/html --out _build/decks-pdf

# JupyterLab with RISE (requirements.txt): present a chapter with its RISE button, or open /rise/<chapter>.ipynb.
lab: $(STAMP)
	$(BIN)/jupyter lab book/

# The built site served to a room from this laptop (coursebuild/serve.py: WhiteNoise on Waitress), on every network
# of the laptop at PORT: each file that compresses is gzipped once into _build/html-gzip and sent compressed to
# every browser that accepts it. It prints the addresses learners open. Ctrl+C stops it.
PORT ?= 8000
serve: $(SITE)
	$(BIN)/python -m coursebuild.serve --site _build/html --port $(PORT)

clean:
	rm -rf _build

distclean: clean
	rm -rf $(VENV)
