"""`berth extender` out of file descriptors (issue 15): run under `ulimit -n 200`, hold 300
connections that send nothing, and check that berth neither aborts nor spins a core re-trying
accept, and that /healthz answers again once the connections close.

No API server is needed: the kubeconfig points at a closed port, so the informers keep retrying
(and run out of descriptors too, which must be a retried error, not an abort).
Python stdlib only; BERTH_BINARY names the binary.
"""

import os
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

CONFIG = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: berth-extender
"""

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "http://127.0.0.1:1"}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ExtenderOutOfDescriptorsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        for name, text in (("config.yaml", CONFIG), ("kubeconfig", KUBECONFIG)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        self.port = free_port()
        self.log = open(os.path.join(d, "berth.log"), "w+")
        binary = os.environ["BERTH_BINARY"]
        self.proc = subprocess.Popen(
            ["bash", "-c", f"ulimit -n 200 && exec {binary} extender --config {d}/config.yaml "
             f"--listen 127.0.0.1:{self.port} --kubeconfig {d}/kubeconfig"],
            stderr=self.log)
        self.conns = []

    def tearDown(self):
        for c in self.conns:
            c.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.log.close()
        self.dir.cleanup()

    def healthz(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
                return r.status
        except Exception as e:  # noqa: BLE001 - any failure is "not answering"
            return repr(e)

    def wait_healthz(self, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.healthz() == 200:
                return True
            time.sleep(0.1)
        return False

    def berth_log(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def test_survives_300_idle_connections_under_ulimit_200(self):
        self.assertTrue(self.wait_healthz(10), self.berth_log())
        for _ in range(300):
            self.conns.append(socket.create_connection(("127.0.0.1", self.port), timeout=5))
        time.sleep(2)  # the accept back-off reaches its 1 s steps
        before = cpu_seconds(self.proc.pid)
        time.sleep(3)
        used = cpu_seconds(self.proc.pid) - before
        self.assertIsNone(self.proc.poll(), "berth exited:\n" + self.berth_log()[-3000:])
        # A spinning accept loop burns the whole 3 s of a core.
        self.assertLess(used, 1.0, "CPU seconds used while saturated")
        for c in self.conns:
            c.close()
        self.conns = []
        self.assertTrue(self.wait_healthz(15), "no /healthz after the load went")
        self.assertIsNone(self.proc.poll(), "berth exited:\n" + self.berth_log()[-3000:])
        log = self.berth_log()
        self.assertIn("accept error: Too many open files", log)
        self.assertNotIn("terminate called", log)


if __name__ == "__main__":
    unittest.main()
