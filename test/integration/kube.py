"""A small client for the test kube-apiserver (stdlib only: no kubectl, no pip packages).

Cluster(dir) starts etcd + kube-apiserver with test/cluster/up and stops them with down.
Requests use the admin token and verify the API server's certificate.
"""
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOKEN = "berth-test-admin-token"


class ApiError(Exception):
    def __init__(self, code, body):
        super().__init__(f"HTTP {code}: {body[:300]}")
        self.code = code
        self.body = body


class Cluster:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="berth-it-")
        self.procs = []
        self.up()

    def up(self):
        env = dict(os.environ)
        if os.path.exists(os.path.join(self.dir, "env")):
            # Restart on the same port, so clients reconnect to the same address.
            env["API_PORT"] = self.env()["API_PORT"]
        out = subprocess.run([os.path.join(ROOT, "test/cluster/up"), self.dir], env=env,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("test/cluster/up failed:\n" + out.stdout + out.stderr)
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        self.port = int(self.env()["API_PORT"])
        self.ctx = ssl.create_default_context(cafile=os.path.join(self.dir, "certs/apiserver.crt"))

    def env(self):
        with open(os.path.join(self.dir, "env")) as f:
            return dict(line.strip().split("=", 1) for line in f if "=" in line)

    def stop_apiserver(self):
        subprocess.run([os.path.join(ROOT, "test/cluster/down"), self.dir, "--keep-etcd"], check=True)

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        subprocess.run([os.path.join(ROOT, "test/cluster/down"), self.dir])
        if os.environ.get("BERTH_KEEP_TEST_DIRS") != "1":
            shutil.rmtree(self.dir, ignore_errors=True)

    # ---- REST ----
    def request(self, method, path, body=None, content_type="application/json"):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"https://127.0.0.1:{self.port}{path}", data=data,
                                     method=method)
        req.add_header("Authorization", "Bearer " + TOKEN)
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30) as r:
                raw = r.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raise ApiError(e.code, e.read().decode(errors="replace")) from None

    def create(self, path, obj):
        return self.request("POST", path, obj)

    def get(self, path):
        return self.request("GET", path)

    def items(self, path):
        return self.get(path)["items"]

    def delete(self, path):
        return self.request("DELETE", path, {"gracePeriodSeconds": 0})

    # ---- objects ----
    def node(self, name, cpu="4", memory="32Gi", pods="110", labels=None, taints=None):
        obj = {"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "labels": dict({"kubernetes.io/hostname": name},
                                                          **(labels or {}))},
               "spec": {"taints": taints or []},
               "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": pods},
                          "allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                          "conditions": [{"type": "Ready", "status": "True"}]}}
        return self.create("/api/v1/nodes", obj)

    def pod(self, name, cpu="100m", memory="128Mi", scheduler="berth-scheduler", ns="default",
            extra_spec=None):
        spec = {"schedulerName": scheduler,
                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}
        spec.update(extra_spec or {})
        obj = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": ns}, "spec": spec}
        return self.create(f"/api/v1/namespaces/{ns}/pods", obj)

    def pods(self, ns="default"):
        return self.items(f"/api/v1/namespaces/{ns}/pods")

    def events(self, ns="default"):
        return self.items(f"/apis/events.k8s.io/v1/namespaces/{ns}/events")

    def service_account_token(self, name, ns="default"):
        """A token of ServiceAccount ns/name (created if missing) from the TokenRequest API."""
        try:
            self.create(f"/api/v1/namespaces/{ns}/serviceaccounts",
                        {"apiVersion": "v1", "kind": "ServiceAccount",
                         "metadata": {"name": name, "namespace": ns}})
        except ApiError as e:
            if e.code != 409:
                raise
        out = self.create(f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token",
                          {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                           "spec": {"expirationSeconds": 3600}})
        return out["status"]["token"]

    # ---- berth ----
    def start_berth(self, name, config_yaml, extra_args=(), delegated_auth=True):
        """Starts `berth run` with this config; its log goes to <dir>/<name>.log. With
        delegated_auth, the secure port reviews tokens and access through this cluster (the admin
        kubeconfig), as kube-scheduler with --authentication-kubeconfig/--authorization-kubeconfig."""
        cfg = os.path.join(self.dir, name + ".config.yaml")
        with open(cfg, "w") as f:
            f.write(with_kubeconfig(config_yaml, self.kubeconfig))
        log_path = os.path.join(self.dir, name + ".log")
        auth = (["--authentication-kubeconfig", self.kubeconfig,
                 "--authorization-kubeconfig", self.kubeconfig] if delegated_auth else [])
        with open(log_path, "w") as log:
            # A free port for /metrics etc., so several instances can run side by side.
            p = subprocess.Popen([berth_binary(), "run", "--config", cfg, "--bind-address",
                                  "127.0.0.1", "--secure-port", "0", *auth, *extra_args],
                                 stdout=log,
                                 stderr=subprocess.STDOUT)
        p.log_path = log_path
        self.procs.append(p)
        return p

    def https_port(self, p, timeout=20):
        """The secure port berth reports in its log."""
        import re
        m = wait_for(lambda: re.search(r"on https port (\d+)", self.log_of(p)), timeout,
                     what="berth's https port")
        return int(m.group(1))

    def log_of(self, p):
        with open(p.log_path) as f:
            return f.read()


def scrape(port, path, token=TOKEN, method="GET", body=None):
    """GET (or `method`, with `body`) https://127.0.0.1:port/path (berth's self-signed
    certificate is not verified) with `Authorization: Bearer <token>` (the admin's by default;
    None sends no credentials)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    data = body.encode() if body is not None else None
    req = urllib.request.Request(f"https://127.0.0.1:{port}{path}", data=data, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, str(e)


def metric(text, name, labels=None):
    """The value of one sample in Prometheus text format (labels: dict subset to match)."""
    total = None
    for line in text.splitlines():
        if not line.startswith(name) or line.startswith("#"):
            continue
        head, _, value = line.rpartition(" ")
        metric_name = head.split("{", 1)[0]
        if metric_name != name:
            continue
        if labels:
            lab = head[len(name):]
            if not all(f'{k}="{v}"' in lab for k, v in labels.items()):
                continue
        total = (total or 0) + float(value)
    return total


def with_kubeconfig(config_yaml, kubeconfig):
    """The config with clientConnection.kubeconfig set to `kubeconfig`: `berth run`, like
    kube-scheduler, ignores --kubeconfig when --config is given. Handles a flow-style
    (`clientConnection: {qps: 1}`) or block-style clientConnection, or none."""
    value = json.dumps(kubeconfig)
    lines = config_yaml.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^clientConnection:\s*(\{(.*)\})?\s*$", line)
        if not m:
            continue
        if m.group(1) is not None:
            inner = m.group(2).strip()
            lines[i] = "clientConnection: {kubeconfig: %s%s}" % (value, ", " + inner if inner else "")
        else:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            indent = re.match(r"^(\s*)", nxt).group(1) or "  "
            lines.insert(i + 1, f"{indent}kubeconfig: {value}")
        return "\n".join(lines) + "\n"
    return config_yaml.rstrip("\n") + f"\nclientConnection:\n  kubeconfig: {value}\n"


def kubectl_binary():
    """kubectl from PATH, else built from the Go modules at test/cluster/VERSION (once, cached
    with the test cluster's binaries): a machine without kubectl still runs the tests that use it."""
    path = shutil.which("kubectl")
    if path:
        return path
    out = subprocess.run([os.path.join(ROOT, "test/cluster/build.sh")],
                         env=dict(os.environ, BERTH_WITH_KUBECTL="1"),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("kubectl is not installed and building it failed:\n" + out.stderr)
    return os.path.join(out.stdout.strip(), "kubectl")


def berth_binary():
    path = os.environ.get("BERTH_BINARY") or os.path.join(ROOT, "build/cmd/berth/berth")
    if not os.path.exists(path):
        raise RuntimeError(f"berth binary not found at {path}: build first (scripts/setup)")
    return path


def config(lease="berth-scheduler", leader_elect=True, lease_seconds=15, extra=""):
    return f"""apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {{qps: 200, burst: 400}}
leaderElection:
  leaderElect: {"true" if leader_elect else "false"}
  resourceName: {lease}
  resourceNamespace: default
  leaseDuration: {lease_seconds}s
  renewDeadline: {max(2, lease_seconds * 2 // 3)}s
  retryPeriod: 1s
profiles:
- schedulerName: berth-scheduler
{extra}"""


def wait_for(fn, timeout, interval=0.2, what="condition"):
    """Polls fn() until it returns a truthy value; returns it, or raises after timeout."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last value: {last!r}")


def quantity(q):
    """Parses the quantities used in these tests into milli-units (cpu) or bytes (memory)."""
    suffixes = {"m": 0.001, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "k": 1e3, "M": 1e6,
                "G": 1e9}
    for s in sorted(suffixes, key=len, reverse=True):
        if q.endswith(s):
            return float(q[: -len(s)]) * suffixes[s]
    return float(q)


def sigkill(p):
    p.send_signal(signal.SIGKILL)
    p.wait()


class ClusterTestCase(unittest.TestCase):
    """A test with a fresh API server in self.c. When the test fails, the tail of the log of each
    process it started through the cluster (berth, extenders, kube-scheduler) is printed."""

    log_tail = 6000

    def setUp(self):
        self.c = Cluster()

    def failed(self):
        result = getattr(getattr(self, "_outcome", None), "result", None)
        return result is not None and any(
            t is self for t, _ in list(result.failures) + list(result.errors))

    def tearDown(self):
        if self.failed():
            for p in self.c.procs:
                print(f"--- log ({p.log_path}) ---\n" + self.c.log_of(p)[-self.log_tail:])
        self.c.close()
