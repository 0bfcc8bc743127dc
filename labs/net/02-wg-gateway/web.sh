# step up: a web server on the internet (netkit started it on port 80); it knows only its own segment
ip route
