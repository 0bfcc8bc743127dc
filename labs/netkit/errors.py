"""The one error netkit raises: a lab file is malformed, or a lab command failed."""


class NetkitError(Exception):
    """A lab file is malformed, or a lab command failed."""
