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

.PHONY: serve build test test-host lint bench clean

serve: $(VENV) $(NODE)            ## serve the course on http://127.0.0.1:8000 with working simulations
	SITE_URL=http://$(HOST):$(PORT)/ $(PY) -m mkdocs serve --dev-addr $(HOST):$(PORT) --no-livereload

build: $(VENV) $(NODE)            ## build the static site into site/
	$(PY) -m mkdocs build --strict

test: $(VENV) $(NODE) host-tools  ## run the whole test suite: lint, model, site, browser, then every lab on real OpenZFS in a VM
	bash tools/vm/host-packages.sh
	$(PY) -m ruff check sim tests tools labs
	$(PY) -m pytest
	bash tools/vm/run-labs.sh

test-host: $(VENV) $(NODE) host-tools  ## everything in `make test` except the VM labs (no root needed)
	$(PY) -m ruff check sim tests tools labs
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

# Debian's chromium (browser tests), and wireguard-tools, wireguard-go, iproute2,
# iputils-ping, iptables, curl and procps (the real WireGuard, NAT and HTTP the network model
# and the namespace labs are checked against), installed once; they need root or sudo.
.PHONY: host-tools
host-tools:
	@missing=""; command -v chromium >/dev/null || missing="chromium"; \
	command -v wg >/dev/null || missing="$$missing wireguard-tools"; \
	command -v wireguard-go >/dev/null || missing="$$missing wireguard-go"; \
	command -v ip >/dev/null || missing="$$missing iproute2"; \
	command -v ping >/dev/null || missing="$$missing iputils-ping"; \
	{ command -v iptables || [ -x /usr/sbin/iptables ]; } >/dev/null || missing="$$missing iptables"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	{ command -v sysctl || [ -x /usr/sbin/sysctl ]; } >/dev/null || missing="$$missing procps"; \
	[ -x /usr/sbin/sshd ] || missing="$$missing openssh-server"; \
	ls /usr/lib/*/libnss_mdns4_minimal.so.2 >/dev/null 2>&1 || missing="$$missing libnss-mdns"; \
	[ -z "$$missing" ] || { \
	  echo "installing Debian packages:$$missing (needs root or sudo)"; \
	  $$(command -v sudo) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$(command -v sudo) apt-get install -y -qq $$missing; }

clean:
	rm -rf site build .pytest_cache

# --- VM labs on real OpenZFS (vagrant/, tools/vm/). Need root, QEMU and libvirt (installed on first use). ---
.PHONY: test-vm vm-box
test-vm:                          ## only the VM part of `make test`: lab notebooks and step checks on real OpenZFS
	bash tools/vm/run-labs.sh

.PHONY: record-real
record-real:                      ## record labs/scripts/*.sh on real OpenZFS in the VM -> tests/fixtures/real/<zfs version>/
	bash tools/vm/record-transcripts.sh

vm-box:                           ## build (or reuse) the cached CI box and print its path
	bash vagrant/build-ci-box.sh
