"""tools/workshop: the plan of a workshop (pure) and the Kubernetes manifests it renders.

What Incus does with the plan is tested in tests/workshop/ (needs Incus)."""

import json
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

from workshop import cli, image, k8s, plan  # noqa: E402
from workshop.cli import parser  # noqa: E402


def settings(**changes):
    values = dict(count=3, report_url="http://10.231.77.1:8000", key="k3y", workshop="lab")
    values.update(changes)
    return plan.Settings(**values)


def counter():
    n = iter(range(1000))
    return lambda: f"s{next(n)}"


def test_pseudonyms_are_distinct_repeatable_and_change_with_the_seed():
    first = plan.pseudonyms(40, seed=1, workshop="lab")
    assert len(set(first)) == 40
    assert first == plan.pseudonyms(40, seed=1, workshop="lab")
    assert first != plan.pseudonyms(40, seed=2, workshop="lab")
    assert first != plan.pseudonyms(40, seed=1, workshop="other")
    assert all(a in plan.ADJECTIVES and b in plan.ANIMALS
               for a, b in (p.split("-") for p in first))


def test_learners_get_their_own_instance_ports_and_secrets():
    learners = plan.plan_learners(settings(ssh_base=2200, jupyter_base=8800), counter())
    assert [x.instance for x in learners] == ["zfl-lab-01", "zfl-lab-02", "zfl-lab-03"]
    assert [x.ssh_port for x in learners] == [2201, 2202, 2203]
    assert [x.jupyter_port for x in learners] == [8801, 8802, 8803]
    secrets_used = [s for x in learners for s in (x.password, x.jupyter_token)]
    assert len(set(secrets_used)) == 6


@pytest.mark.parametrize("changes, message", [
    (dict(workshop="Lab"), "workshop name"),
    (dict(workshop="averylongname"), "workshop name"),
    (dict(count=0), "learners"),
    (dict(count=100), "learners"),
    (dict(report_url="10.0.0.1:8000"), "report URL"),
    (dict(key=""), "key"),
    (dict(instructor_workshop="Zfs 2026"), "instructor workshop"),
    (dict(ssh_base=65530, count=9), "ports"),
])
def test_settings_refuse_what_incus_or_the_learners_could_not_use(changes, message):
    with pytest.raises(ValueError, match=message):
        settings(**changes)


def test_workshop_file_is_the_toml_labkit_reads():
    s = settings(report_url='http://host:8000/w"x', key='a"b\\c')
    learner = plan.plan_learners(s, counter())[1]
    data = tomllib.loads(plan.workshop_toml(s, learner))
    assert data == {"url": 'http://host:8000/w"x', "workshop": "lab",
                    "learner": learner.pseudonym, "key": 'a"b\\c'}


def test_the_instructor_servers_workshop_id_may_differ_from_the_incus_name():
    s = settings(instructor_workshop="zfs-2026-11")
    learner = plan.plan_learners(s, counter())[0]
    assert tomllib.loads(plan.workshop_toml(s, learner))["workshop"] == "zfs-2026-11"
    assert plan.profile(s)["config"][plan.WORKSHOP_KEY] == "lab"
    assert learner.instance == "zfl-lab-01"
    args = parser().parse_args(["up", "3", "--report-url", "http://h:1", "--workshop", "lab",
                                "--instructor-workshop", "zfs-2026-11"])
    assert cli._settings(args).reported_workshop == "zfs-2026-11"


def test_cloud_config_carries_the_same_files_as_an_incus_learner_gets():
    s = settings()
    learner = plan.plan_learners(s, counter())[0]
    text = plan.cloud_init_user_data(s, learner)
    assert text.startswith("#cloud-config\n")
    config = yaml.safe_load(text)
    files = {f["path"]: (f["content"], f["permissions"]) for f in config["write_files"]}
    assert files == plan.learner_files(s, learner)
    assert config["chpasswd"]["users"] == [
        {"name": "learner", "password": learner.password, "type": "text"}]
    assert f"--IdentityProvider.token={learner.jupyter_token} " in files[plan.JUPYTER_DROPIN][0]


def test_profile_and_proxies_name_the_workshop_network_and_ports():
    s = settings(memory="768MiB", cpus="1", listen="0.0.0.0")
    p = plan.profile(s)
    assert p["devices"]["eth0"]["network"] == "zfl-lab"
    assert p["config"] == {"limits.memory": "768MiB", "limits.cpu": "1",
                           "security.nesting": "true", plan.WORKSHOP_KEY: "lab"}
    assert p["devices"]["tun"] == {"type": "unix-char", "path": "/dev/net/tun"}
    learner = plan.plan_learners(s, counter())[2]
    proxies = plan.proxy_devices(s, learner)
    assert proxies["ssh"]["listen"] == "tcp:0.0.0.0:2203"
    assert proxies["jupyter"]["connect"] == "tcp:127.0.0.1:8888"
    assert plan.network_config(s)["ipv4.nat"] == "false"
    text = plan.access_text(plan.Settings(**{**s.__dict__, "public_host": "ws.example"}),
                            learner)
    assert f"ssh -p 2203 learner@ws.example   password: {learner.password}" in text
    assert f"http://ws.example:8803/lab?token={learner.jupyter_token}" in text


def test_image_metadata_is_incus_metadata_and_names_the_box(tmp_path):
    box = image.Box(tmp_path / "zfl-ci-debian13-6.12.118+deb13-zfs2.3.9-4cece9be62.box")
    ct = yaml.safe_load(image.metadata_yaml(box, "ct", 1764000000))
    vm = yaml.safe_load(image.metadata_yaml(box, "vm", 1764000000))
    assert ct["architecture"] == vm["architecture"] == "x86_64"
    assert ct["properties"]["release"] == "trixie"
    assert set(ct["templates"]) == {"/etc/hostname", "/etc/hosts"}
    assert "templates" not in vm
    assert image.image_alias(box, "ct").startswith("zfl-workshop-ct-")
    assert image.image_alias(box, "vm") != image.image_alias(
        image.Box(tmp_path / "zfl-ci-debian12-6.1.0-56-zfs2.1.11-8b0dcc51a0.box"), "vm")
    boot = image.vm_boot_config(box)
    assert f"-kernel {box.kernel} -initrd {box.initrd}" in boot["raw.qemu"]


# --- Kubernetes (Educates + KubeVirt) --------------------------------------------------------
# No schema validator for the Educates and KubeVirt CRDs is reachable offline (kubeconform
# fetches schemas from the network); the manifest's structure is checked here instead.

def rendered(count=3):
    return list(yaml.safe_load_all(k8s.render(settings(count=count), vm_memory="2Gi")))


def test_k8s_manifest_renders_a_workshop_and_a_portal_for_n_sessions():
    workshop, portal = rendered(count=5)
    assert (workshop["apiVersion"], workshop["kind"]) == ("training.educates.dev/v1beta1",
                                                         "Workshop")
    assert (portal["apiVersion"], portal["kind"]) == ("training.educates.dev/v1beta1",
                                                     "TrainingPortal")
    assert portal["spec"]["portal"]["sessions"]["maximum"] == 5
    assert portal["spec"]["workshops"][0]["name"] == workshop["metadata"]["name"] == "zfl-lab"
    assert portal["spec"]["workshops"][0]["reserved"] == 5
    objects = {o["kind"]: o for o in workshop["spec"]["session"]["objects"]}
    assert set(objects) == {"VirtualMachine", "Service"}
    assert objects["VirtualMachine"]["apiVersion"] == "kubevirt.io/v1"
    assert {p["targetPort"] for p in objects["Service"]["spec"]["ports"]} == {22, 8888}
    assert objects["Service"]["spec"]["selector"] == \
        objects["VirtualMachine"]["spec"]["template"]["metadata"]["labels"]


def test_k8s_vm_boots_the_ci_box_kernel_with_the_learner_cloud_config():
    workshop, _ = rendered()
    vm = workshop["spec"]["session"]["objects"][0]["spec"]["template"]["spec"]
    boot = vm["domain"]["firmware"]["kernelBoot"]
    assert boot["kernelArgs"] == image.KERNEL_CMDLINE
    assert boot["container"]["kernelPath"] == "/boot/vmlinuz"
    assert vm["domain"]["resources"]["requests"]["memory"] == "2Gi"
    disks = [d["name"] for d in vm["domain"]["devices"]["disks"]]
    volumes = {v["name"]: v for v in vm["volumes"]}
    assert disks[0] == "root" and set(disks) == set(volumes)   # the root disk is /dev/vda
    assert volumes["root"]["containerDisk"]["image"] == k8s.DEFAULT_CONTAINER_DISK
    cloud = yaml.safe_load(volumes["cloudinit"]["cloudInitNoCloud"]["userData"])
    toml = next(f["content"] for f in cloud["write_files"] if f["path"] == plan.WORKSHOP_FILE)
    assert tomllib.loads(toml) == {"url": "http://10.231.77.1:8000", "workshop": "lab",
                                   "learner": "$(session_name)", "key": "k3y"}
    assert "${" not in json.dumps(workshop)


def test_k8s_command_prints_the_rendered_manifest(capsys):
    from workshop.cli import main
    assert main(["k8s", "2", "--workshop", "ws1", "--report-url", "https://i.example",
                 "--key", "K"]) == 0
    workshop, portal = yaml.safe_load_all(capsys.readouterr().out)
    assert workshop["metadata"]["name"] == "zfl-ws1"
    assert portal["spec"]["portal"]["sessions"]["maximum"] == 2


def test_cli_up_needs_a_report_url():
    with pytest.raises(SystemExit):
        parser().parse_args(["up", "3"])
    args = parser().parse_args(["up", "3", "--report-url", "http://x", "--workshop", "w2"])
    assert (args.count, args.memory, args.listen, args.workshop) == (3, "1GiB", "127.0.0.1",
                                                                     "w2")
    assert parser().parse_args(["down"]).workshop == "lab"


def test_incus_missing_is_reported_not_raised():
    from workshop.incus import Incus, usable
    ok, why = usable(Incus(binary="zfl-no-such-incus"))
    assert not ok and "not installed" in why
