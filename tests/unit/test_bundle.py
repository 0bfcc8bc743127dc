"""The offline archive (tools/bundle.py) and its server (tools/bundle_serve.py), on a tiny site;
tests/browser/test_bundle_in_browser.py runs the real one in chromium."""

import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))

import bundle  # noqa: E402


def test_archive_is_one_folder_with_server_readme_and_site_and_is_reproducible(tmp_path):
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<h1>course</h1>")
    (site / "assets" / "a.wasm").write_bytes(b"\0asm\1\0\0\0")
    (site / "assets" / "b.mjs").write_text("export {};")
    one = bundle.write_bundle(site, tmp_path / "one.zip")
    two = bundle.write_bundle(site, tmp_path / "two.zip")
    assert one.read_bytes() == two.read_bytes()
    with zipfile.ZipFile(one) as zf:
        assert sorted(zf.namelist()) == [
            "zfs-field-labs/README.txt", "zfs-field-labs/serve.py",
            "zfs-field-labs/site/assets/a.wasm", "zfs-field-labs/site/assets/b.mjs",
            "zfs-field-labs/site/index.html"]
        assert zf.getinfo("zfs-field-labs/serve.py").external_attr >> 16 == 0o755
        zf.extractall(tmp_path / "out")
    folder = tmp_path / "out" / "zfs-field-labs"
    server = subprocess.Popen([sys.executable, "serve.py", "--port", "0"], cwd=folder,
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().split("open ", 1)[1].split()[0]
        types = {}
        for name in ("", "assets/a.wasm", "assets/b.mjs"):
            with urllib.request.urlopen(url + name) as reply:
                types[name] = reply.headers["Content-Type"]
        assert types == {"": "text/html; charset=utf-8", "assets/a.wasm": "application/wasm",
                         "assets/b.mjs": "text/javascript"}
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_serve_py_refuses_a_folder_without_the_site(tmp_path):
    (tmp_path / "serve.py").write_bytes((REPO / "tools" / "bundle_serve.py").read_bytes())
    done = subprocess.run([sys.executable, "serve.py"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "unpack the whole archive" in done.stderr
