"""A model of WireGuard: X25519 keys as `wg` handles them (``keys``), the cryptokey routing
table of peers' AllowedIPs (``allowed_ips``), a host's WireGuard interfaces and their peers
(``device``), and how `wg` reads its command lines and configuration files (``config``).
`wg` itself is labsim.shell.commands.wg, its output labsim.format.wg."""
