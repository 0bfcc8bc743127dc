"""Keys and a configuration file shared by the `wg` tests (test_wg_set.py, test_wg_show.py).
The keys are fixed so that recorded outputs of the real `wg` can be compared text for text."""

IF0_PRIV = "+DYa1mgGemfMtLnbD/03oYvQSovhj9ZG6itRP8V59WA="
IF0_PUB = "S6b8N1/IV19qXZSU9u00muESx78J6f6MDJ0kDv+MUQc="
IF1_PRIV = "oLWQokqX3wj57z/5CtWHcQJbSnlBZweTj1dREAEAGFA="
IF1_PUB = "OyTIHHcA6YRXcDSvLHT0wM+MKNNsfO9u3zoT5WjQjxs="
P1_PUB = "9OvDm8avt0nMWJ/5bWdfOuxHbPwD5nHFpJHpsHOJxSk="
P2_PUB = "gDdC53cBQu184jTfvno77eO1dBv5f/GznjdVrphgdx0="
P3_PUB = "/QQx1S07IzWG9Om0elgQg4gFYrdqrXQhLXG970HCEEo="
P4_PUB = "UkLFz7b1gTJFPcQ7OZrnXXpd9CDB86WNuzY5biqcFFA="
PSK1 = "osi1R6vh0YbG5kpWpOcpq06Wc1+05tXMBfM/ZR+xqbE="

# A configuration with every [Interface] and [Peer] field `wg setconf` takes.
FULL_CONF = f"""[Interface]
PrivateKey = {IF0_PRIV}
ListenPort = 51820
FwMark = 0x1234

[Peer]
PublicKey = {P1_PUB}
PresharedKey = {PSK1}
AllowedIPs = 10.0.0.2/32, fd00::2/128
Endpoint = 192.0.2.1:51820
PersistentKeepalive = 25
"""
