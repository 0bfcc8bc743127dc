# ZFS Field Labs: the two commands a newcomer needs are `make serve` and `make test`.
# Every target installs what it needs on first use (Python venv, npm packages, Debian chromium).

PY      := .venv/bin/python
VENV    := .venv/.installed
NODE    := node_modules/.installed
HOST    ?= 127.0.0.1
PORT    ?= 8000
# Material for MkDocs prints a banner about its end of life on every build; keep output readable.
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test lint bench clean notebooks

serve: $(VENV) $(NODE)            ## serve the course on http://127.0.0.1:8000 with working simulations
	SITE_URL=http://$(HOST):$(PORT)/ $(PY) -m mkdocs serve --dev-addr $(HOST):$(PORT) --no-livereload

build: $(VENV) $(NODE)            ## build the static site into site/
	$(PY) -m mkdocs build --strict

test: $(VENV) $(NODE) chromium    ## run the whole test suite (lint, model, docs build, notebooks, browser)
	$(PY) -m ruff check sim tests tools
	$(PY) -m pytest

bench: $(VENV) $(NODE) chromium   ## print performance numbers as JSON
	@$(PY) tools/bench.py

$(VENV): requirements-dev.txt sim/pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt -e sim
	touch $@

$(NODE): package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

.PHONY: chromium
chromium:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian chromium (needs root or sudo)"; \
	  $$(command -v sudo) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$(command -v sudo) apt-get install -y -qq chromium; }

clean:
	rm -rf site build .pytest_cache

notebooks: $(VENV)                ## re-run the lab notebooks and store their outputs (nbval compares them)
	for nb in labs/*.ipynb; do $(PY) -m jupyter execute --inplace "$$nb"; done

# --- VM labs on real OpenZFS (vagrant/, tools/vm/). Needs root; not part of `make test` yet. ---
.PHONY: test-vm vm-box
test-vm:                          ## run the VM lab notebooks on real OpenZFS in a libvirt VM (builds the CI box on first use)
	bash tools/vm/run-labs.sh

.PHONY: record-real
record-real:                      ## record labs/scripts/*.sh on real OpenZFS in the VM -> tests/fixtures/real/<zfs version>/
	bash tools/vm/record-transcripts.sh

vm-box:                           ## build (or reuse) the cached CI box and print its path
	bash vagrant/build-ci-box.sh
