"""How the tests and the benchmark start Debian's chromium (never a downloaded browser).

The flags keep a headless chromium from reaching for Google's services, which this
machine's closed network refuses (see ../shared/ENVIRONMENT.md).
"""

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def launch(playwright):
    """A headless Debian chromium driven by Playwright."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
