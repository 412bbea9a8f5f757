"""setup.py: the build step pyproject.toml's setuptools backend runs for
``pip install .`` (README.md, "Python"). Before the package's files are
copied, it configures this source tree with CMake in a folder of its own
(build-python/: never the user's build/; setuptools' own files go in
build-python/setuptools), builds only the shared library
target (kvplan_shared), and copies libkvplan.so.1 into the package, where
kvplan/__init__.py looks first: ``import kvplan`` then needs no environment
variable. The version is the one project(VERSION) sets in CMakeLists.txt.

The wheel holds a compiled library, so it is tagged for this platform, not
"pure". CMake honours $CMAKE_C_COMPILER_LAUNCHER (ccache) and
$CMAKE_BUILD_PARALLEL_LEVEL."""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))
ABI_SONAME = "libkvplan.so.%s"


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(kvplan VERSION ([0-9]+\.[0-9]+\.[0-9]+)", f.read())
    if not m:
        raise RuntimeError("CMakeLists.txt: no 'project(kvplan VERSION X.Y.Z' line")
    return m.group(1)


def check_abi_major(version):
    """The package speaks one library major (kvplan.ABI_MAJOR, the SONAME's):
    it must be the major of the library this build compiles."""
    with open(os.path.join(ROOT, "python", "kvplan", "__init__.py"), encoding="utf-8") as f:
        m = re.search(r"^ABI_MAJOR = ([0-9]+)$", f.read(), re.M)
    if not m or m.group(1) != version.split(".")[0]:
        raise RuntimeError("python/kvplan/__init__.py: ABI_MAJOR = %s, but CMakeLists.txt builds "
                           "libkvplan %s: make them agree" % (m.group(1) if m else "?", version))


class BuildWithLibrary(build_py):
    """build_py, then the library built by CMake into the built package."""

    def run(self):
        super().run()
        cmake = shutil.which("cmake")
        if not cmake:
            raise RuntimeError("cmake not found: kvplan's library is built with CMake "
                               "(Debian: apt-get install cmake; or bash scripts/deps.sh build)")
        tree = os.path.join(ROOT, "build-python")
        subprocess.check_call([cmake, "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release",
                               "-DKVP_TESTS=OFF", "-DKVP_BENCH=OFF", "-DKVP_EXAMPLES=OFF",
                               "-DKVP_INSTALL=OFF"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call([cmake, "--build", tree, "--target", "kvplan_shared",
                               "--parallel", jobs])
        version = project_version()
        check_abi_major(version)
        soname = ABI_SONAME % version.split(".")[0]
        # The SONAME file itself (a link to libkvplan.so.X.Y.Z in the tree):
        # copied as a plain file under the name the loader asks for.
        src = os.path.realpath(os.path.join(tree, soname))
        dest = os.path.join(self.build_lib, "kvplan", soname)
        self.mkpath(os.path.dirname(dest))
        shutil.copyfile(src, dest)
        os.chmod(dest, 0o755)


class PlatformDistribution(Distribution):
    """A wheel with a compiled library in it: platform-specific."""

    def has_ext_modules(self):
        return True


os.makedirs(os.path.join(ROOT, "build-python"), exist_ok=True)
setup(version=project_version(), distclass=PlatformDistribution,
      cmdclass={"build_py": BuildWithLibrary},
      options={"build": {"build_base": os.path.join("build-python", "setuptools")},
               "egg_info": {"egg_base": "build-python"}})
