"""Output formats and human-readable numbers, as OpenZFS 2.1 and GNU coreutils print them."""
