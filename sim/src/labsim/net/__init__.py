"""Linux networking for the WireGuard lessons: hosts, links, routes, and packet delivery."""
