"""`berth extender` out of file descriptors (issue 15): run under `ulimit -n 200`, hold 300
connections that send nothing, and check that berth neither aborts nor spins a core re-trying
accept, that /healthz answers again once the connections close, and that /metrics counts the
accept errors. A second case checks that connections over --max-connections are refused and
counted.

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
        self.conns = []
        self.proc = None
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        for name, text in (("config.yaml", CONFIG), ("kubeconfig", KUBECONFIG)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        self.port = free_port()
        self.log = open(os.path.join(d, "berth.log"), "w+")

    def start(self, ulimit, extra=""):
        d = self.dir.name
        binary = os.environ["BERTH_BINARY"]
        self.proc = subprocess.Popen(
            ["bash", "-c", f"ulimit -n {ulimit} && exec {binary} extender --config {d}/config.yaml "
             f"--listen 127.0.0.1:{self.port} --kubeconfig {d}/kubeconfig {extra}"],
            stderr=self.log)

    def tearDown(self):
        for c in self.conns:
            c.close()
        if self.proc is not None and self.proc.poll() is None:
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

    def metric(self, name):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as r:
            text = r.read().decode()
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name + "{") and 'listener="http"' in line)

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
        self.start(200)
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
        self.assertGreater(self.metric("berth_http_accept_errors_total"), 0)

    def test_connections_over_the_cap_are_refused_and_counted(self):
        self.start(1024, "--max-connections 20")
        self.assertTrue(self.wait_healthz(10), self.berth_log())
        for _ in range(40):
            self.conns.append(socket.create_connection(("127.0.0.1", self.port), timeout=5))
        # The 20 over the cap are closed by berth at once: reading them gives EOF (or a reset).
        time.sleep(1)
        closed = 0
        for c in self.conns:
            c.settimeout(0.2)
            try:
                closed += c.recv(1) == b""
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed += 1
        self.assertEqual(closed, 20, "connections over --max-connections 20")
        for c in self.conns:
            c.close()
        self.conns = []
        self.assertTrue(self.wait_healthz(15), "no /healthz after the load went")
        self.assertGreaterEqual(self.metric("berth_http_connections_refused_total"), 20)
        self.assertIn("refusing new ones", self.berth_log())


if __name__ == "__main__":
    unittest.main()
