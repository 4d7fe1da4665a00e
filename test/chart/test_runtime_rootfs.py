"""The container image's runtime file system (scripts/runtime-rootfs, the Dockerfile's
`FROM scratch` stage): berth runs from it as user 65532 with nothing else there: no shell, no
tools. Checked with chroot (needs root, as scripts/test does); no container runtime involved.
BERTH_BINARY names the binary. Python stdlib only.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class RuntimeRootfsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise RuntimeError("test_runtime_rootfs needs root (chroot); run it as scripts/test does")
        cls.dir = tempfile.mkdtemp(prefix="berth-rootfs-")
        subprocess.run([os.path.join(ROOT, "scripts", "runtime-rootfs"),
                        os.environ["BERTH_BINARY"], cls.dir], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def berth(self, *args):
        return subprocess.run(["chroot", "--userspec=65532:65532", self.dir,
                               "/usr/local/bin/berth", *args], capture_output=True, text=True)

    def test_no_shell_or_tools(self):
        names = {n for _, _, files in os.walk(self.dir) for n in files}
        for tool in ["sh", "bash", "dash", "busybox", "apt", "dpkg", "ls", "cat"]:
            self.assertNotIn(tool, names)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "bin")))

    def test_berth_runs_as_nonroot(self):
        out = self.berth("version")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^berth \d+\.\d+\.\d+")

    def test_simulate_runs_inside(self):
        shutil.copy(os.path.join(ROOT, "docs", "examples", "cluster.yaml"),
                    os.path.join(self.dir, "tmp", "cluster.yaml"))
        out = self.berth("simulate", "--cluster", "/tmp/cluster.yaml")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('"pod":"shop/web-1","node":"node-1","status":"Scheduled"', out.stdout)


if __name__ == "__main__":
    unittest.main()
