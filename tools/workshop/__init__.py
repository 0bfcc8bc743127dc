"""Learner environments for instructor-led workshops, on an existing engine (Incus).

``python3 tools/workshop up N`` makes N learner environments from the CI box
(vagrant/build-ci-box.sh), ``python3 tools/workshop down`` removes everything ``up`` made.
See docs/workshop-environments.md. Modules:

* :mod:`workshop.plan`: what a workshop is made of (learners, pseudonyms, ports, the
  workshop file each learner gets, the Incus network and profile), pure functions;
* :mod:`workshop.incus`: the ``incus`` command line, and whether it is usable here;
* :mod:`workshop.image`: the CI box turned into Incus images (a container image, and a VM
  image from the same qcow2);
* :mod:`workshop.engine`: ``up`` and ``down`` against Incus;
* :mod:`workshop.k8s`: the Kubernetes path (Educates with KubeVirt), rendered manifests;
* :mod:`workshop.cli`: the command line.
"""
