# ZFS Field Labs: the two commands a newcomer needs are `make serve` and `make test`.
# Every target installs what it needs on first use (Python venv, npm packages, Debian chromium,
# wireguard-tools and wireguard-go).

PY      := .venv/bin/python
VENV    := .venv/.installed
NODE    := node_modules/.installed
HOST    ?= 127.0.0.1
PORT    ?= 8000
# Material for MkDocs prints a banner about its end of life on every build; keep output readable.
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build bundle handouts test test-host lint bench clean

serve: $(VENV) $(NODE)            ## serve the course on http://127.0.0.1:8000 with working simulations
	SITE_URL=http://$(HOST):$(PORT)/ ZFL_STATIC_FIGURES=optional $(PY) -m mkdocs serve --dev-addr $(HOST):$(PORT) --no-livereload

build: $(VENV) $(NODE)            ## build the static site into site/
	$(PY) -m mkdocs build --strict

bundle: $(VENV) $(NODE)           ## build/zfs-field-labs-offline.zip: the built site with a tiny local server (python3 serve.py), for use without the internet
	$(PY) tools/bundle.py

handouts: build                   ## PDFs of the handouts (each track, with and without solutions) and of every lesson's slides, into build/handouts/ (Debian chromium)
	$(PY) tools/handouts_pdf.py site build/handouts

test: $(VENV) $(NODE) host-tools  ## run the whole test suite: lint, model, site, browser, then every lab on real OpenZFS in a VM
	bash tools/vm/host-packages.sh
	$(PY) -m ruff check sim tests tools labs instructor
	$(PY) -m mypy --config-file sim/pyproject.toml
	$(PY) -m pytest
	bash tools/vm/run-labs.sh

test-host: $(VENV) $(NODE) host-tools  ## everything in `make test` except the VM labs (no root needed)
	$(PY) -m ruff check sim tests tools labs instructor
	$(PY) -m mypy --config-file sim/pyproject.toml
	$(PY) -m pytest

bench: $(VENV) $(NODE) host-tools  ## print performance numbers as JSON
	@$(PY) tools/bench.py

$(VENV): requirements-dev.txt sim/pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt -e sim
	touch $@

$(NODE): package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

# Debian's chromium, WireGuard, iptables, curl, sshd and friends: the real tools the browser
# tests and the namespace labs run. Installed once (needs root or sudo), services held back.
.PHONY: host-tools
host-tools:
	@bash tools/host-tools.sh

clean:
	rm -rf site build .pytest_cache

# --- VM labs on real OpenZFS (vagrant/, tools/vm/). Need root, QEMU and libvirt (installed on first use). ---
.PHONY: test-vm vm-box
test-vm:                          ## only the VM part of `make test`: lab notebooks and step checks on real OpenZFS
	bash tools/vm/run-labs.sh

.PHONY: record-real
record-real:                      ## record labs/scripts/*.sh on real OpenZFS in the VM -> tests/fixtures/real/<zfs version>/
	bash tools/vm/record-transcripts.sh

.PHONY: record-generated
record-generated:                 ## record generated lab scripts (tools/difftest) in one VM boot -> tests/fixtures/real/<zfs version>/generated/ (ZFL_GENERATED_SEEDS=all|tuning|held-out|A-B,...)
	bash tools/vm/record-generated.sh

vm-box:                           ## build (or reuse) the cached CI box and print its path
	bash vagrant/build-ci-box.sh

# --- A fresh machine: a throwaway Debian root (mmdebstrap) that clones this repository's HEAD
# and runs the README's host test command in it, timed (needs root; see tools/fresh-machine.sh).
SUITE ?= trixie
.PHONY: fresh-machine
fresh-machine:                    ## `make test-host` and `make build` in a fresh Debian root: make fresh-machine SUITE=bookworm|trixie (root)
	bash tools/fresh-machine.sh $(SUITE)
