"""A model of WireGuard: X25519 keys as `wg` handles them (``keys``) and the cryptokey
routing table of peers' AllowedIPs (``allowed_ips``)."""
