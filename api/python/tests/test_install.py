"""The package installs as a researcher would install it
(docs/library-robustness.md#python-install): `pip install --no-build-isolation ./api/python` into a
fresh virtual environment made with `/usr/bin/python3 -m venv --system-site-packages` (Debian's
numpy, setuptools and wheel; no package index), then imported from elsewhere with no PYTHONPATH or
ROUTELAB_LIB: its __version__ is the library's (api/include/routelab/version.h), it loads the library it
ships, and a closed form gives the command line's number."""

import os
import re
import subprocess
import sys

from conftest import ROOT, cli


def header_version():
    with open(os.path.join(ROOT, "api", "include", "routelab", "version.h")) as f:
        t = f.read()
    return "%s.%s" % (re.search(r"ROUTELAB_ABI_MAJOR (\d+)", t).group(1),
                      re.search(r"ROUTELAB_ABI_MINOR (\d+)", t).group(1))


def test_pip_install_into_a_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ROUTELAB_LIB", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "-q",
                        os.path.join(ROOT, "api", "python")], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    code = ("import routelab; print(routelab.__version__); print(routelab.__file__); "
            "print(routelab._lib._path); print(repr(float(routelab.farmass_lower(65024, 8, 2))))")
    p = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    version, init, lib, rho = p.stdout.split("\n")[:4]
    assert version == header_version()
    assert init.startswith(str(venv)), init          # the installed package, not the tree's
    assert lib == os.path.join(os.path.dirname(init), "libroutelab.so"), lib
    want = cli("bound", "farmass", "--ml", "65024", "--k", "8", "--lambda", "2").strip()
    assert float(rho) == float(want), (rho, want)


def test_version_in_the_tree():
    import routelab
    assert routelab.__version__ == header_version() == routelab.version()
    assert sys.modules["routelab"].__version__ == routelab.__version__
