"""Build step of the routelab package (pyproject.toml holds the metadata).

The package is ctypes over libroutelab: the build runs `make lib` in the
repository above this folder and copies the shared library into the package
as routelab/libroutelab.so, which _lib.py loads first (after $ROUTELAB_LIB).
The version is the library's, read from api/include/routelab/version.h, the one
place it is written.  Outside a repository (no api/include/ above) the build
refuses in one line: the package is built from the repository.
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VERSION_H = os.path.join(ROOT, "api", "include", "routelab", "version.h")


def abi_version():
    with open(VERSION_H) as f:
        text = f.read()
    major = re.search(r"#define ROUTELAB_ABI_MAJOR (\d+)", text).group(1)
    minor = re.search(r"#define ROUTELAB_ABI_MINOR (\d+)", text).group(1)
    return major, minor


class BuildWithLibrary(build_py):
    """build_py, then libroutelab built by the repository's Makefile and copied in."""

    def run(self):
        super().run()
        major, minor = abi_version()
        # a make of its own (not a surrounding make's jobserver)
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        subprocess.run(["make", "--no-print-directory", "-C", ROOT, "lib"], check=True, env=env)
        src = os.path.join(ROOT, "build", "libroutelab.so.%s.%s" % (major, minor))
        dst = os.path.join(self.build_lib, "routelab")
        os.makedirs(dst, exist_ok=True)
        shutil.copyfile(src, os.path.join(dst, "libroutelab.so"))
        with open(os.path.join(dst, "_version.py"), "w") as f:
            f.write('"""Written by setup.py: the library version this package was built with."""\n'
                    '__version__ = "%s.%s"\n' % (major, minor))


class BinaryDistribution(Distribution):
    """The wheel carries a shared library: a platform wheel, not a pure one."""

    def has_ext_modules(self):
        return True


if os.path.exists(VERSION_H):
    setup(version="%s.%s" % abi_version(), cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
else:
    raise SystemExit("routelab: build the package from the repository (api/python/ beside api/include/ and the Makefile)")
