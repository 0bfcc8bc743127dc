# step setup: the client's resolver, name service switch, ssh settings and a key to log in with
mount --bind /run/lab/resolv.conf /etc/resolv.conf
mount --bind /run/lab/nsswitch.conf /etc/nsswitch.conf
mount --bind /run/lab/ssh_config /etc/ssh/ssh_config
ssh-keygen -q -t ed25519 -N "" -C root@client -f /run/lab/id_ed25519

# step login: the server's host key is known; log in once (this starts the master connection)
ssh server true  # expect-fail
