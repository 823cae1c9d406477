"""numba's cache falls back when the package directory is read-only and HOME is not writable.

Each case runs in a fresh interpreter on a copy of the package that cannot be written, with a
HOME that cannot be written either (numba's in-tree and user-wide cache locators both fail).
How the copy is made unwritable depends on who runs the tests:

- "chmod": a normal user: the files and directories lose their write bits;
- "mount": root (chmod does not stop root) where ``unshare -m`` is allowed: a read-only bind
  mount, which stops root too;
- "simulate": root without mount namespaces: numba's locator check (``ensure_cache_path``)
  raises OSError for every path under the copy, as it would on a read-only file system.

Every run first shows that plain ``numba.njit(cache=True)`` fails there ("cannot cache
function"), so the set-up reproduces the bug and the other checks can fail.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

import imlkit

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes, uids and mount namespaces are POSIX")

PKG = os.path.dirname(os.path.abspath(imlkit.__file__))

PROBE = '''
from ._numba import njit


@njit(cache=True)
def add_one(x):
    return x + 1
'''

PLAIN = '''
def double(x):
    return 2 * x
'''

SCRIPT = textwrap.dedent('''
    import json, os, sys, tempfile, types
    RO = sys.argv[1]
    # The package without its __init__ (which imports scikit-learn, pandas, ...): only _numba,
    # _sampler_cart and _trees matter here, and the test stays a few seconds per process.
    package = types.ModuleType("imlkit")
    package.__path__ = [os.path.join(RO, "imlkit")]
    sys.modules["imlkit"] = package
    if sys.argv[3] == "ro_tmp":
        # the system temp directory is not writable either (tempfile would otherwise skip an
        # unwritable TMPDIR and fall back to /tmp)
        tempfile.tempdir = os.path.join(RO, "tmp")
    if sys.argv[2] == "simulate":
        import numba.core.caching as caching

        original = caching._CacheLocator.ensure_cache_path

        def ensure_cache_path(self):
            if os.path.abspath(self.get_cache_path()).startswith(RO + os.sep):
                raise OSError(30, "Read-only file system (simulated)")
            return original(self)

        caching._CacheLocator.ensure_cache_path = ensure_cache_path
    import numba
    import imlkit._probe_plain as plain

    out = {"numba_module_loaded_early": "imlkit._numba" in sys.modules}
    try:
        numba.njit(cache=True)(plain.double)
        out["plain_numba"] = "ok"
    except RuntimeError as exc:
        out["plain_numba"] = str(exc)
    import imlkit._sampler_cart, imlkit._trees._kernels, imlkit._probe as probe, imlkit._numba as nb

    out["value"] = int(probe.add_one(41)) if sys.argv[4] == "call" else None
    out["status"] = nb.cache_status()
    out["cache_dir"] = os.environ.get("NUMBA_CACHE_DIR")
    out["hits"] = sum(probe.add_one.stats.cache_hits.values())
    out["misses"] = sum(probe.add_one.stats.cache_misses.values())
    print(json.dumps(out))
''')


def _mount_namespaces_work():
    if not shutil.which("unshare"):
        return False
    try:
        res = subprocess.run(["unshare", "-m", "sh", "-c", "mount --bind / /mnt 2>/dev/null || "
                              "mount -t tmpfs none /mnt"], capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return res.returncode == 0


def _mode():
    if os.geteuid() != 0:
        return "chmod"
    return "mount" if _mount_namespaces_work() else "simulate"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A read-only root (package copy, HOME, an unwritable temp dir) and a writable temp dir."""
    base = tmp_path_factory.mktemp("numba_ro")
    ro = base / "ro"
    shutil.copytree(PKG, ro / "imlkit", ignore=shutil.ignore_patterns("__pycache__"))
    (ro / "imlkit" / "_probe.py").write_text(PROBE)
    (ro / "imlkit" / "_probe_plain.py").write_text(PLAIN)
    (ro / "home").mkdir()
    (ro / "tmp").mkdir()
    (base / "tmp").mkdir()
    mode = _mode()
    if mode == "chmod":
        for root, _dirs, files in os.walk(ro):
            for name in files:
                os.chmod(os.path.join(root, name), stat.S_IRUSR | stat.S_IRGRP)
        for root, dirs, _ in os.walk(ro, topdown=False):
            for name in dirs:
                os.chmod(os.path.join(root, name), stat.S_IRUSR | stat.S_IXUSR)
        os.chmod(ro, stat.S_IRUSR | stat.S_IXUSR)
    yield str(ro), str(base / "tmp"), mode
    if mode == "chmod":
        for root, dirs, _ in os.walk(ro):
            os.chmod(root, stat.S_IRWXU)
            for name in dirs:
                os.chmod(os.path.join(root, name), stat.S_IRWXU)


def _run(sandbox, tmpdir, numba_cache_dir=None, ro_tmp=False, call=True):
    ro, _, mode = sandbox
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(ro, "home"),
           "TMPDIR": tmpdir, "PYTHONPATH": ro, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    if numba_cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = numba_cache_dir
    cmd = [sys.executable, "-c", SCRIPT, ro, mode, "ro_tmp" if ro_tmp else "-", "call" if call else "-"]
    if mode == "mount":
        cmd = ["unshare", "-m", "sh", "-c", 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
               ro] + cmd
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _package_status(out, ro):
    return out["status"][os.path.join(ro, "imlkit")]


def test_read_only_package_caches_in_a_private_temp_dir(sandbox):
    ro, tmpdir, _ = sandbox
    first = _run(sandbox, tmpdir)
    # the set-up reproduces the bug: numba alone cannot cache a function of the read-only copy
    assert "cannot cache function" in first["plain_numba"]
    assert not first["numba_module_loaded_early"]
    # imlkit's kernels import, compile and cache in the fallback directory
    assert first["value"] == 42
    assert _package_status(first, ro) == "temp"
    assert _package_status(first, ro) == first["status"][os.path.join(ro, "imlkit", "_trees")]
    cache_dir = first["cache_dir"]
    assert cache_dir == os.path.join(tmpdir, f"imlkit-numba-cache-{os.geteuid()}")
    st = os.stat(cache_dir)
    assert st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    assert first["misses"] == 1 and first["hits"] == 0
    assert any(name.endswith(".nbi") for _, _, files in os.walk(cache_dir) for name in files)
    # a second process loads the compiled function from that cache
    second = _run(sandbox, tmpdir)
    assert second["hits"] == 1 and second["misses"] == 0 and second["cache_dir"] == cache_dir


def test_no_writable_temp_dir_compiles_without_cache(sandbox):
    ro, _, _ = sandbox
    out = _run(sandbox, os.path.join(ro, "tmp"), ro_tmp=True)
    assert "cannot cache function" in out["plain_numba"]
    assert out["value"] == 42 and _package_status(out, ro) == "off" and out["cache_dir"] is None
    assert out["hits"] == 0


def test_unwritable_numba_cache_dir_of_the_user_is_respected(sandbox, tmp_path):
    ro, _, _ = sandbox
    tmpdir = str(tmp_path)
    chosen = os.path.join(ro, "home", "numba-cache")
    out = _run(sandbox, tmpdir, numba_cache_dir=chosen, call=False)   # the decision is made at import
    assert "cannot cache function" in out["plain_numba"]
    assert _package_status(out, ro) == "off" and not os.listdir(tmpdir)
    assert out["cache_dir"] == chosen   # not replaced by imlkit's fallback


def test_writable_package_keeps_numbas_own_cache(tmp_path):
    # The usual case is unchanged: numba's in-tree locator caches next to the source.
    (tmp_path / "mod_probe.py").write_text("from imlkit._numba import njit\n\n\n@njit(cache=True)\n"
                                           "def triple(x):\n    return 3 * x\n")
    code = ("import sys, types; sys.path.insert(0, sys.argv[1]); package = types.ModuleType('imlkit'); "
            "package.__path__ = [sys.argv[2]]; sys.modules['imlkit'] = package; "
            "import mod_probe, imlkit._numba as nb, json; "
            "print(json.dumps([int(mod_probe.triple(2)), nb.cache_status()]))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(PKG)] + sys.path))
    env.pop("NUMBA_CACHE_DIR", None)
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path), PKG], env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    value, status = json.loads(res.stdout.strip().splitlines()[-1])
    assert value == 6 and status == {str(tmp_path): "numba"}
    assert any(p.suffix == ".nbi" for p in (tmp_path / "__pycache__").iterdir())
