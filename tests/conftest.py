"""Settings for the whole suite.

Hypothesis's default 200 ms deadline per example makes a correctness test fail when the
machine is busy (CI shares two cores with a VM under software emulation). Speed has its
own place, `make bench`; here every example may take as long as it takes."""

from hypothesis import settings

settings.register_profile("zfl", deadline=None)
settings.load_profile("zfl")
