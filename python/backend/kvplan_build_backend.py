"""The build backend of `pip install .`: setuptools' own (setuptools.build_meta,
Debian 12's python3-setuptools), with Debian's `wheel` found when the
environment lacks it.

Why: a virtual environment of Debian 12's python3 (`python3 -m venv .venv`)
gets pip 23.0.1 and setuptools 66.1.1 but not `wheel`, and setuptools < 70.1
builds wheels with wheel's bdist_wheel ("error: invalid command
'bdist_wheel'"). With --no-build-isolation nothing is fetched (nothing can be:
no index is reachable), so the README's
    python3 -m venv .venv && .venv/bin/pip install --no-build-isolation .
would fail. When `wheel` cannot be imported, this puts Debian's copy of that
one package on the build's path: python3-wheel-whl's wheel file, else
python3-wheel's folder and its metadata (through links in a private folder,
so that nothing else of the system's site-packages becomes importable). It changes nothing
when `wheel` is there (a --system-site-packages venv, an isolated build,
python3 -m build). The installed package does not depend on it.
"""
import atexit
import glob
import importlib.util
import os
import shutil
import sys
import tempfile


def _debian_wheel():
    if importlib.util.find_spec("wheel") is not None:
        return
    for whl in sorted(glob.glob("/usr/share/python-wheels/wheel-*.whl")):
        sys.path.append(whl)  # a wheel file is an importable zip
        return
    # The package and its metadata: setuptools finds bdist_wheel through the
    # entry points wheel's metadata declares (distutils.commands).
    system = "/usr/lib/python3/dist-packages"
    meta = sorted(glob.glob(os.path.join(system, "wheel-*.dist-info")) +
                  glob.glob(os.path.join(system, "wheel-*.egg-info")))
    if os.path.isdir(os.path.join(system, "wheel")) and meta:
        only = tempfile.mkdtemp(prefix="kvplan-build-wheel-")
        atexit.register(shutil.rmtree, only, True)
        for path in [os.path.join(system, "wheel"), meta[-1]]:
            os.symlink(path, os.path.join(only, os.path.basename(path)))
        sys.path.append(only)


_debian_wheel()

from setuptools.build_meta import *  # noqa: E402,F401,F403  (the PEP 517 hooks)
