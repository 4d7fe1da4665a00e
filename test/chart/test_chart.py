"""The Helm chart (charts/berth), tested for real. Python stdlib only.

1. helm (v3.22.0, built from the Go module proxy by build_helm.sh when missing) lints and renders
   the chart: defaults, and with the ServiceMonitor, PodGroup CRD and Grafana dashboard on.
2. The rendered objects are created on a real kube-apiserver (test/cluster, RBAC on) with strict
   field validation, so a typo in a template is an error here, not on a user's cluster.
3. berth runs as the chart's ServiceAccount (a TokenRequest token) with the chart's own config.yaml
   and schedules pods with no "forbidden" anywhere: the ClusterRole and Role are enough.
4. The same token is refused everything berth does not do: the RBAC is not more than needed.

Run: python3 -m unittest -v test_chart  (from this folder), or through ctest. Needs go (to build
helm the first time), the test cluster binaries (test/cluster/build.sh) and a built berth.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
import kube  # noqa: E402  (test/integration/kube.py)
from kube import wait_for  # noqa: E402

CHART = os.path.join(ROOT, "charts", "berth")
NS = "berth-system"
RELEASE = "berth"
# The upstream version berth targets (test/cluster/VERSION, e.g. v1.37.2), without the "v".
with open(os.path.join(ROOT, "test", "cluster", "VERSION")) as _f:
    KUBE_VERSION = _f.read().strip().lstrip("v")
# The installed chart: every optional part on, and the default profile with Coscheduling (as
# scheduler-plugins' coscheduling config), since berth keeps PodGroup status only for profiles
# that enable it.
ALL_ON = ["--set", "serviceMonitor.enabled=true,crds.podGroup=true,grafanaDashboard.enabled=true,"
          "networkPolicy.enabled=true,prometheusRule.enabled=true,metricsReader.create=true,"
          "explainReader.create=true",
          "--set-json", 'metricsReader.subjects=[{"kind": "ServiceAccount", "name": "prometheus", '
          '"namespace": "berth-system"}]',
          "--set-json", 'explainReader.subjects=[{"kind": "ServiceAccount", "name": "developer", '
          '"namespace": "berth-system"}]',
          "--set-json", 'config.profiles=[{"schedulerName": "berth-scheduler", "plugins": {'
          '"multiPoint": {"enabled": [{"name": "Coscheduling"}]}, '
          '"queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]}}}]']

# Where each rendered kind is created. A kind missing here fails the test, so a new template
# cannot go untested. None: the kind needs a CRD the test cluster does not have.
PATHS = {
    ("v1", "ServiceAccount"): "/api/v1/namespaces/{ns}/serviceaccounts",
    ("v1", "ConfigMap"): "/api/v1/namespaces/{ns}/configmaps",
    ("v1", "Service"): "/api/v1/namespaces/{ns}/services",
    ("rbac.authorization.k8s.io/v1", "ClusterRole"):
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"):
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
    ("rbac.authorization.k8s.io/v1", "Role"):
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
    ("rbac.authorization.k8s.io/v1", "RoleBinding"):
        "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
    ("apps/v1", "Deployment"): "/apis/apps/v1/namespaces/{ns}/deployments",
    ("policy/v1", "PodDisruptionBudget"): "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"):
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
    ("monitoring.coreos.com/v1", "ServiceMonitor"): None,
    ("monitoring.coreos.com/v1", "PrometheusRule"): None,
    ("networking.k8s.io/v1", "NetworkPolicy"):
        "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
    ("v1", "Pod"): "/api/v1/namespaces/{ns}/pods",  # the `helm test` hook
}
# Creation order: what a binding or a pod refers to comes first.
ORDER = ["CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
         "RoleBinding", "ConfigMap", "Service", "Deployment", "PodDisruptionBudget",
         "ServiceMonitor", "PrometheusRule", "NetworkPolicy", "Pod"]


# ---- helm ----

def build_helm():
    """Path of the helm binary; builds it (a few minutes, once) when missing. Raises on failure:
    a machine that cannot build helm fails this test rather than skipping it."""
    out = subprocess.run([os.path.join(HERE, "build_helm.sh")], capture_output=True, text=True)
    if out.returncode != 0 or not os.path.exists(out.stdout.strip()):
        raise RuntimeError("test/chart/build_helm.sh could not build helm (needs go and the Go "
                           "module proxy):\n" + out.stderr[-4000:])
    return out.stdout.strip()


class Helm:
    def __init__(self, path):
        self.path = path
        self.home = tempfile.mkdtemp(prefix="berth-helm-")
        self.env = dict(os.environ, HELM_CACHE_HOME=os.path.join(self.home, "cache"),
                        HELM_CONFIG_HOME=os.path.join(self.home, "config"),
                        HELM_DATA_HOME=os.path.join(self.home, "data"))

    def run(self, *args, check=True):
        out = subprocess.run([self.path, *args], capture_output=True, text=True, env=self.env)
        if check and out.returncode != 0:
            raise AssertionError(f"helm {' '.join(args)} failed ({out.returncode}):\n"
                                 f"{out.stdout}\n{out.stderr}")
        return out

    def template(self, *extra):
        return self.run("template", RELEASE, CHART, "--namespace", NS, "--kube-version",
                        KUBE_VERSION, *extra).stdout


# ---- the rendered YAML, without a YAML library ----

def split_docs(rendered):
    """Splits helm's output into documents, each with the top-level fields the test needs
    (helm's own layout: top-level keys at column 0, metadata fields at two spaces)."""
    docs = []
    for text in re.split(r"(?m)^---\s*$", rendered):
        if not re.search(r"(?m)^kind:", text):
            continue
        kind = re.search(r"(?m)^kind:\s*(\S+)", text).group(1)
        api = re.search(r"(?m)^apiVersion:\s*(\S+)", text).group(1)
        meta = re.search(r"(?ms)^metadata:\n((?:[ #].*\n|\n)*)", text + "\n").group(1)
        name = re.search(r"(?m)^  name:\s*(\S+)", meta).group(1)
        namespace = re.search(r"(?m)^  namespace:\s*(\S+)", meta)
        source = re.search(r"(?m)^# Source:\s*(\S+)", text)
        docs.append({"kind": kind, "apiVersion": api, "name": name, "text": text,
                     "namespace": namespace.group(1) if namespace else NS,
                     "source": source.group(1) if source else ""})
    return docs


def configmap_file(doc, key):
    """The block scalar `key: |` of a rendered ConfigMap, dedented."""
    m = re.search(r"(?ms)^  " + re.escape(key) + r": \|-?\n((?:    .*\n|\n)*)", doc["text"] + "\n")
    return textwrap.dedent(m.group(1))


# ---- REST with any token, any content type ----

def call(cluster, method, path, body=None, token=kube.TOKEN, content_type="application/json"):
    """(status, parsed JSON body or text): never raises on an HTTP error status."""
    if body is not None and not isinstance(body, (bytes, str)):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    req = urllib.request.Request(f"https://127.0.0.1:{cluster.port}{path}", data=data,
                                 method=method)
    req.add_header("Authorization", "Bearer " + token)
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, context=cluster.ctx, timeout=30) as r:
            status, raw = r.status, r.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode(errors="replace")


def redacted_log(text):
    """berth's log without each line's timestamp, so ".403Z" cannot look like a status code."""
    return "\n".join(line.split(" ", 1)[1] if " " in line else line
                     for line in text.splitlines())


class ChartTest(unittest.TestCase):
    """One cluster for the class: the chart is installed once, then each test looks at it."""

    @classmethod
    def setUpClass(cls):
        cls.helm = Helm(build_helm())
        try:
            cls.rendered = cls.helm.template()
            cls.rendered_all = cls.helm.template(*ALL_ON)
            cls.c = kube.Cluster()
        except BaseException:
            shutil.rmtree(cls.helm.home, ignore_errors=True)
            raise
        try:
            cls.install()
        except BaseException:
            cls.c.close()
            shutil.rmtree(cls.helm.home, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        berth = getattr(cls, "berth", None)
        if berth is not None and berth.poll() is None:
            berth.terminate()
            try:
                berth.wait(timeout=10)
            except subprocess.TimeoutExpired:
                berth.kill()
                berth.wait()
        cls.c.close()
        shutil.rmtree(cls.helm.home, ignore_errors=True)

    # ---- install: what `helm install` would create, through the REST API ----

    @classmethod
    def install(cls):
        c = cls.c
        status, body = call(c, "POST", "/api/v1/namespaces",
                            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
        assert status == 201, (status, body)
        cls.created = {}
        docs = sorted(split_docs(cls.rendered_all), key=lambda d: ORDER.index(d["kind"])
                      if d["kind"] in ORDER else len(ORDER))
        for d in docs:
            key = (d["apiVersion"], d["kind"])
            assert key in PATHS, f"{d['source']}: no creation path for {key}; add it to PATHS"
            if PATHS[key] is None:
                continue
            # YAML straight from helm; Strict rejects unknown or duplicate fields.
            status, body = call(c, "POST", PATHS[key].format(ns=d["namespace"]) + "?fieldValidation=Strict",
                                d["text"], content_type="application/yaml")
            assert status == 201, f"creating {d['kind']} {d['name']} ({d['source']}): " \
                                  f"HTTP {status}: {body}"
            cls.created[(d["kind"], d["name"])] = body
            if d["kind"] == "CustomResourceDefinition":
                wait_for(lambda n=d["name"]: cls.established(n), 30,
                         what=f"CRD {d['name']} Established")

    @classmethod
    def established(cls, name):
        status, crd = call(cls.c, "GET",
                           f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        return status == 200 and any(
            cond["type"] == "Established" and cond["status"] == "True"
            for cond in (crd.get("status") or {}).get("conditions") or [])

    @classmethod
    def created_of(cls, kind):
        return [v for (k, _), v in cls.created.items() if k == kind]

    @classmethod
    def service_account(cls):
        (sa,) = cls.created_of("ServiceAccount")
        return sa["metadata"]["name"]

    @classmethod
    def sa_token(cls):
        if getattr(cls, "_token", None):
            return cls._token
        sa = cls.service_account()
        status, body = call(cls.c, "POST", f"/api/v1/namespaces/{NS}/serviceaccounts/{sa}/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {"expirationSeconds": 3600}})
        assert status == 201, f"TokenRequest: HTTP {status}: {body}"
        cls._token = body["status"]["token"]
        return cls._token

    @classmethod
    def start_berth(cls):
        """berth as the chart's ServiceAccount, with the chart's config.yaml (read back from the
        ConfigMap the API server stored)."""
        if getattr(cls, "berth", None) is not None:
            return cls.berth
        c = cls.c
        (cm,) = [v for v in cls.created_of("ConfigMap") if "config.yaml" in v.get("data", {})]
        cfg = os.path.join(c.dir, "chart-config.yaml")
        kubeconfig = os.path.join(c.dir, "sa.kubeconfig")
        with open(cfg, "w") as f:
            f.write(kube.with_kubeconfig(cm["data"]["config.yaml"], kubeconfig))
        kubeconfig = os.path.join(c.dir, "sa.kubeconfig")
        with open(kubeconfig, "w") as f:
            f.write(textwrap.dedent(f"""\
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: https://127.0.0.1:{c.port}
                    certificate-authority: {os.path.join(c.dir, "certs/apiserver.crt")}
                users:
                - name: berth
                  user:
                    token: {cls.sa_token()}
                contexts:
                - name: berth
                  context: {{cluster: test, user: berth, namespace: {NS}}}
                current-context: berth
                """))
        log_path = os.path.join(c.dir, "berth-chart.log")
        with open(log_path, "w") as log:
            # As kube-scheduler, berth ignores --kubeconfig with --config: the config names it.
            # The secure port reviews tokens and access as the ServiceAccount too (in a pod, the
            # in-cluster config does that), on a free port.
            p = subprocess.Popen([kube.berth_binary(), "run", "--config", cfg,
                                  "--namespace", NS, "--v", "2",
                                  "--authentication-kubeconfig", kubeconfig,
                                  "--authorization-kubeconfig", kubeconfig,
                                  "--bind-address", "127.0.0.1", "--secure-port", "0"],
                                 stdout=log, stderr=subprocess.STDOUT)
        p.log_path = log_path
        c.procs.append(p)
        cls.berth = p
        return p

    def berth_log(self):
        return self.c.log_of(self.berth) if getattr(self, "berth", None) else ""

    def run(self, result=None):
        # Print berth's log when a test fails.
        before = len(result.failures) + len(result.errors) if result else 0
        out = super().run(result)
        if (result and len(result.failures) + len(result.errors) > before and
                self._testMethodName.startswith("test_3") and self.berth_log()):
            print(f"\n--- berth log ({self.berth.log_path}) ---\n" + self.berth_log()[-6000:])
        return out

    def assert_not_refused(self):
        """A missing RBAC rule shows in berth's log long before a wait times out."""
        denied = [line for line in redacted_log(self.berth_log()).splitlines()
                  if re.search(r"(?i)forbidden|\b403\b", line)]
        self.assertFalse(denied, "berth was refused by the API server:\n" + "\n".join(denied[:5]))

    # ---- 1. helm lint / template ----

    def test_1_lint_strict(self):
        for extra in ([], ALL_ON):
            out = self.helm.run("lint", "--strict", CHART, "--kube-version", KUBE_VERSION, *extra)
            self.assertIn("0 chart(s) failed", out.stdout)
            self.assertNotRegex(out.stdout, r"\[(WARNING|ERROR)\]")

    def test_1_template_defaults(self):
        kinds = sorted(d["kind"] for d in split_docs(self.rendered))
        self.assertEqual(kinds, sorted(["ServiceAccount", "ConfigMap", "ClusterRole",
                                        "ClusterRoleBinding", "Role", "RoleBinding",
                                        "RoleBinding", "Service", "Deployment",
                                        "PodDisruptionBudget", "Pod"]))
        (test_pod,) = [d for d in split_docs(self.rendered) if d["kind"] == "Pod"]
        self.assertIn('helm.sh/hook: test', test_pod["text"])
        self.assertRegex(test_pod["text"], r"https://berth-metrics\.berth-system\.svc:10259/healthz")
        (cm,) = [d for d in split_docs(self.rendered) if d["kind"] == "ConfigMap"]
        cfg = configmap_file(cm, "config.yaml")
        self.assertIn("apiVersion: kubescheduler.config.k8s.io/v1", cfg)
        self.assertIn("kind: KubeSchedulerConfiguration", cfg)
        self.assertRegex(cfg, r"(?m)^  resourceName: berth-scheduler$")
        self.assertRegex(cfg, rf"(?m)^  resourceNamespace: {NS}$")
        self.assertRegex(cfg, r"(?m)^  leaderElect: true$")
        self.assertRegex(cfg, r"(?m)^- schedulerName: berth-scheduler$")

    def test_1_template_optional_parts(self):
        docs = split_docs(self.rendered_all)
        kinds = [d["kind"] for d in docs]
        self.assertIn("ServiceMonitor", kinds)
        self.assertIn("CustomResourceDefinition", kinds)
        (dash,) = [d for d in docs if d["kind"] == "ConfigMap" and "berth.json" in d["text"]]
        self.assertRegex(dash["text"], r'(?m)^    grafana_dashboard: "1"$')
        rendered_json = json.loads(configmap_file(dash, "berth.json"))
        with open(os.path.join(CHART, "dashboards", "berth.json")) as f:
            self.assertEqual(rendered_json, json.load(f))
        exprs = " ".join(t["expr"] for p in rendered_json["panels"] for t in p["targets"])
        for metric in ["scheduler_schedule_attempts_total",
                       "scheduler_scheduling_attempt_duration_seconds_bucket",
                       "scheduler_pending_pods", "scheduler_pod_scheduling_sli_duration_seconds",
                       "scheduler_framework_extension_point_duration_seconds",
                       "scheduler_unschedulable_pods", "berth_api_requests_total",
                       "berth_informer_watch_restarts_total", "berth_pending_pod_reasons"]:
            self.assertIn(metric, exprs)
        (sm,) = [d for d in docs if d["kind"] == "ServiceMonitor"]
        self.assertIn("port: https-metrics", sm["text"])
        self.assertIn("bearerTokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token",
                      sm["text"])
        (reader,) = [d for d in docs if d["kind"] == "ClusterRole" and "metrics-reader" in d["name"]]
        self.assertRegex(reader["text"], r'nonResourceURLs: \["/metrics", "/metrics/resources"\]')
        (explainer,) = [d for d in docs
                        if d["kind"] == "ClusterRole" and "explain-reader" in d["name"]]
        self.assertRegex(explainer["text"], r'nonResourceURLs: \["/debug/explain/\*"\]')
        (proxy,) = [d for d in docs if d["kind"] == "Role" and "explain-reader" in d["name"]]
        self.assertIn('resources: ["pods/proxy", "services/proxy"]', proxy["text"])
        self.assertFalse([d for d in docs if "explain-through-proxy" in d["name"]],
                         "anonymous access is opt-in")
        (np,) = [d for d in docs if d["kind"] == "NetworkPolicy"]
        self.assertIn("port: https", np["text"])
        (rule,) = [d for d in docs if d["kind"] == "PrometheusRule"]
        for alert in ["BerthPendingPodsGrowing", "BerthNoLeader", "BerthBindErrors",
                      "BerthApiErrors"]:
            self.assertIn(f"alert: {alert}", rule["text"])
        # Every metric an alert uses is one berth exports (see the README's metrics list).
        for metric in ["scheduler_pending_pods", "leader_election_master_status",
                       "scheduler_schedule_attempts_total", "berth_api_requests_total"]:
            self.assertIn(metric + "{job=\"berth-metrics\"", rule["text"])

    def test_1_values_schema_refuses_typos(self):
        """values.schema.json: an unknown key or a wrong type fails lint and template."""
        typo = os.path.join(self.c.dir, "values-typo.yaml")
        with open(typo, "w") as f:
            f.write("replica: 3\n")  # "replicas"
        out = self.helm.run("lint", "--strict", CHART, "-f", typo, check=False)
        self.assertNotEqual(out.returncode, 0, out.stdout)
        self.assertIn("additional properties 'replica' not allowed", out.stdout + out.stderr)
        for bad, why in [("replicas=two", "/replicas"), ("serviceMonitor.intervall=1m", "intervall"),
                         ("leaderElection.leaseDuration=15", "/leaderElection/leaseDuration")]:
            out = self.helm.run("template", RELEASE, CHART, "--set", bad, check=False)
            self.assertNotEqual(out.returncode, 0, bad)
            self.assertIn(why, out.stderr, bad)

    def test_1_template_profiles_and_plugin_config(self):
        values = os.path.join(self.c.dir, "values-profiles.yaml")
        with open(values, "w") as f:
            f.write(textwrap.dedent("""\
                config:
                  extraProfiles:
                    - schedulerName: berth-binpack
                      pluginConfig:
                        - name: NodeResourcesFit
                          args:
                            scoringStrategy:
                              type: MostAllocated
                              resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
                  pluginConfig:
                    - name: NodeResourcesFit
                      args:
                        scoringStrategy:
                          type: LeastAllocated
                          resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
                  extra:
                    percentageOfNodesToScore: 50
                """))
        (cm,) = [d for d in split_docs(self.helm.template("-f", values))
                 if d["kind"] == "ConfigMap"]
        cfg = configmap_file(cm, "config.yaml")
        self.assertIn("schedulerName: berth-binpack", cfg)
        self.assertIn("percentageOfNodesToScore: 50", cfg)
        # The global entry reaches the default profile; the profile's own entry wins in its own.
        self.assertEqual(cfg.count("type: LeastAllocated"), 1)
        self.assertEqual(cfg.count("type: MostAllocated"), 1)
        # berth accepts it: simulate parses the config with the same strict decoder as run.
        path = os.path.join(self.c.dir, "profiles-config.yaml")
        with open(path, "w") as f:
            f.write(cfg)
        empty = os.path.join(self.c.dir, "empty-cluster.yaml")
        with open(empty, "w") as f:
            f.write("apiVersion: v1\nkind: List\nitems: []\n")
        out = subprocess.run([kube.berth_binary(), "simulate", "--cluster", empty, "--config",
                              path], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)

    def test_1_template_refuses_two_leaders(self):
        out = self.helm.run("template", RELEASE, CHART, "--set", "leaderElection.enabled=false",
                            check=False)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("leaderElection", out.stderr)

    def test_1_notes_render(self):
        # Another release name and namespace: the chart's objects already exist under "berth".
        out = self.helm.run("install", "notes", CHART, "--namespace", "default",
                            "--dry-run=server", "--kubeconfig", self.c.kubeconfig)
        self.assertIn("schedulerName: berth-scheduler", out.stdout)

    # ---- 2. the objects as the API server stored them ----

    def test_2_deployment_as_stored(self):
        (dep,) = self.created_of("Deployment")
        spec = dep["spec"]
        self.assertEqual(spec["replicas"], 2)
        pod = spec["template"]["spec"]
        (ctr,) = pod["containers"]
        self.assertEqual(ctr["args"][:3], ["run", "--config", "/etc/berth/config.yaml"])
        env = {e["name"]: e for e in ctr["env"]}
        self.assertEqual(env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"],
                         "metadata.namespace")
        for probe, path in (("livenessProbe", "/livez"), ("readinessProbe", "/readyz")):
            get = ctr[probe]["httpGet"]
            self.assertEqual((get["path"], get["scheme"]), (path, "HTTPS"))
            self.assertIn(get["port"], ("https", 10259))
        self.assertEqual(ctr["ports"][0]["containerPort"], 10259)
        sc = ctr["securityContext"]
        self.assertTrue(sc["runAsNonRoot"])
        self.assertTrue(sc["readOnlyRootFilesystem"])
        self.assertFalse(sc["allowPrivilegeEscalation"])
        self.assertEqual(sc["capabilities"]["drop"], ["ALL"])
        self.assertEqual(sc["seccompProfile"]["type"], "RuntimeDefault")
        self.assertEqual(pod["serviceAccountName"], self.service_account())
        self.assertTrue(pod.get("topologySpreadConstraints") or
                        pod.get("affinity", {}).get("podAntiAffinity"))
        mounts = {m["mountPath"]: m["name"] for m in ctr["volumeMounts"]}
        self.assertIn("/etc/berth", mounts)
        (pdb,) = self.created_of("PodDisruptionBudget")
        self.assertEqual(pdb["spec"]["maxUnavailable"], 1)
        (svc,) = self.created_of("Service")
        self.assertEqual([(p["name"], p["port"]) for p in svc["spec"]["ports"]],
                         [("https-metrics", 10259)])

    def test_2_podgroup_crd_accepts_scheduler_plugins_objects(self):
        pg = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
              "metadata": {"name": "gang", "namespace": "default"},
              "spec": {"minMember": 3, "minResources": {"cpu": "3", "memory": "1Gi"},
                       "scheduleTimeoutSeconds": 60}}
        base = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups"
        status, body = call(self.c, "POST", base + "?fieldValidation=Strict", pg)
        self.assertEqual(status, 201, body)
        body["status"] = {"phase": "Scheduling", "occupiedBy": "uid-1", "running": 1,
                          "succeeded": 0, "failed": 0, "scheduleStartTime": "2025-01-01T00:00:00Z"}
        status, got = call(self.c, "PUT", base + "/gang/status?fieldValidation=Strict", body)
        self.assertEqual(status, 200, got)
        self.assertEqual(got["status"]["phase"], "Scheduling")
        status, body = call(self.c, "POST", base, dict(pg, metadata={"name": "bad"},
                                                       spec={"minMember": 0}))
        self.assertEqual(status, 422, "minMember must be at least 1")

    # ---- 3. berth with the chart's RBAC and config ----

    def test_3_berth_schedules_with_chart_rbac(self):
        c = self.c
        berth = self.start_berth()
        c.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": {"name": "apps"}})
        for i in range(3):
            c.node(f"node-{i}", cpu="4", memory="16Gi")
        for i in range(6):
            c.pod(f"p{i}", ns="apps")
        c.pod("too-big", cpu="64", ns="apps")

        def bound():
            self.assert_not_refused()
            pods = {p["metadata"]["name"]: p for p in c.pods("apps")}
            done = [n for n, p in pods.items() if p["spec"].get("nodeName")]
            return done if len(done) == 6 else None
        wait_for(bound, 60, what="6 pods bound by berth")
        self.assertNotIn("nodeName", c.get("/api/v1/namespaces/apps/pods/too-big")["spec"])

        def events(reason):
            return [e for e in c.events("apps") if e.get("reason") == reason]
        scheduled = wait_for(lambda: (lambda ev: ev if len(ev) >= 6 else None)(
            events("Scheduled")), 30, what="Scheduled events")
        self.assertEqual(scheduled[0]["reportingController"], "berth-scheduler")
        wait_for(lambda: events("FailedScheduling"), 30, what="a FailedScheduling event")

        # pods/status patch: the PodScheduled=False condition of the pod that does not fit.
        def condition():
            pod = c.get("/api/v1/namespaces/apps/pods/too-big")
            return [x for x in pod.get("status", {}).get("conditions", [])
                    if x["type"] == "PodScheduled" and x["status"] == "False"]
        wait_for(condition, 30, what="PodScheduled=False on too-big")

        # podgroups/status patch. berth keeps a PodGroup's status only while it leads (and it does:
        # it bound the pods), as scheduler-plugins' controller; a group seen before that waits
        # for a 30 s resync, so the group is created now.
        groups = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/apps/podgroups"
        status, body = call(c, "POST", groups,
                            {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                             "metadata": {"name": "team"}, "spec": {"minMember": 2}})
        self.assertEqual(status, 201, body)

        def group_phase():
            self.assert_not_refused()
            return call(c, "GET", groups + "/team")[1].get("status", {}).get("phase")
        wait_for(group_phase, 30, what="berth to write the PodGroup's status.phase")

        # The Lease in the release namespace, held by berth.
        def lease():
            status, body = call(
                c, "GET", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/berth-scheduler")
            return body if status == 200 and body["spec"].get("holderIdentity") else None
        lease = wait_for(lease, 15, what="the berth-scheduler Lease held")
        self.assertTrue(lease["spec"].get("holderIdentity"))

        # The secure port, with the chart's RBAC for TokenReviews, SubjectAccessReviews and the
        # kube-system ConfigMap: anonymous /metrics is refused, the metrics reader's token (the
        # metricsReader subject) is let in, the health checks answer anyone.
        port = int(wait_for(lambda: re.search(r"on https port (\d+)", self.berth_log()), 30,
                            what="berth's https port").group(1))
        self.assertEqual(kube.scrape(port, "/readyz", token=None), (200, "ok"))
        code, body = kube.scrape(port, "/metrics", token=None)
        self.assertEqual(code, 403, body)
        status, body = call(c, "POST", f"/api/v1/namespaces/{NS}/serviceaccounts",
                            {"apiVersion": "v1", "kind": "ServiceAccount",
                             "metadata": {"name": "prometheus"}})
        self.assertEqual(status, 201, body)
        status, body = call(c, "POST",
                            f"/api/v1/namespaces/{NS}/serviceaccounts/prometheus/token",
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {"expirationSeconds": 3600}})
        self.assertEqual(status, 201, body)
        code, text = kube.scrape(port, "/metrics", token=body["status"]["token"])
        self.assertEqual(code, 200, text)
        self.assertIn("scheduler_pending_pods", text)
        code, body = kube.scrape(port, "/configz", token=body["status"]["token"])
        self.assertEqual(code, 403, body)
        # The explainReader subject may read diagnoses (404: berth has none of that pod) and
        # nothing else; anonymous may not.
        developer = c.service_account_token("developer", ns=NS)
        code, body = kube.scrape(port, "/debug/explain/default/nothing-here", token=developer)
        self.assertEqual(code, 404, body)
        self.assertEqual(json.loads(body)["reason"], "NotFound")
        self.assertEqual(kube.scrape(port, "/metrics", token=developer)[0], 403)
        self.assertEqual(kube.scrape(port, "/debug/explain/default/x", token=None)[0], 403)

        self.assertIsNone(berth.poll(), "berth exited")
        log = redacted_log(self.berth_log())
        self.assertNotRegex(log, r"(?i)forbidden")
        self.assertNotRegex(log, r"\b403\b")

    # ---- 4. and no more ----

    def test_4_token_is_refused_what_berth_does_not_do(self):
        c, token = self.c, self.sa_token()
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
               "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}
        lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                 "metadata": {"name": "berth-scheduler"}, "spec": {"holderIdentity": "x"}}
        other_lease = dict(lease, metadata={"name": "someone-else"})
        refused = [
            # (DELETE pods is allowed: DefaultPreemption deletes victims.)
            ("POST", "/api/v1/namespaces/default/pods", pod),
            ("POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease),
            ("POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", lease),
            ("GET", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/someone-else", None),
            ("PUT", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases/someone-else",
             other_lease),
            ("GET", f"/apis/coordination.k8s.io/v1/namespaces/{NS}/leases", None),
            ("GET", "/api/v1/secrets", None),
            ("GET", f"/api/v1/namespaces/{NS}/secrets", None),
            ("GET", "/api/v1/configmaps", None),
            ("PATCH", "/api/v1/nodes/node-0", {"metadata": {"labels": {"x": "y"}}}),
            ("PATCH", "/api/v1/namespaces/default/pods/x", {"metadata": {"labels": {"x": "y"}}}),
            ("PUT", "/api/v1/namespaces/default/pods/x/status", pod),
            ("POST", "/api/v1/namespaces/default/events", {"metadata": {"name": "e"}}),
            ("DELETE", "/apis/events.k8s.io/v1/namespaces/default/events/e", None),
            ("GET", "/api/v1/namespaces/default/pods/x/log", None),
            ("POST", "/api/v1/namespaces/default/pods/x/eviction", {}),
            ("POST", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups",
             {"metadata": {"name": "g"}}),
            ("DELETE", "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups/g", None),
            ("POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles",
             {"metadata": {"name": "r"}}),
        ]
        content = {"PATCH": "application/merge-patch+json"}
        for method, path, body in refused:
            status, resp = call(c, method, path, body, token=token,
                                content_type=content.get(method, "application/json"))
            self.assertEqual(status, 403, f"{method} {path} should be forbidden for berth's "
                                          f"ServiceAccount; got HTTP {status}: {resp}")

    def test_4_access_reviews_match_the_code(self):
        """Every call berth makes is allowed; each neighbour of it is denied. SubjectAccessReview
        covers the calls the scheduling test cannot easily provoke (get after a 409, event
        series patch)."""
        user = f"system:serviceaccount:{NS}:{self.service_account()}"
        groups = ["system:serviceaccounts", f"system:serviceaccounts:{NS}",
                  "system:authenticated"]

        def allowed(verb, group, resource, sub="", ns="", name=""):
            attrs = {"verb": verb, "group": group, "resource": resource}
            if sub:
                attrs["subresource"] = sub
            if ns:
                attrs["namespace"] = ns
            if name:
                attrs["name"] = name
            status, body = call(self.c, "POST",
                                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                {"apiVersion": "authorization.k8s.io/v1",
                                 "kind": "SubjectAccessReview",
                                 "spec": {"user": user, "groups": groups,
                                          "resourceAttributes": attrs}})
            self.assertEqual(status, 201, body)
            return body["status"].get("allowed", False)

        needed = [("list", "", "pods"), ("watch", "", "pods"), ("get", "", "pods"),
                  ("list", "", "nodes"), ("watch", "", "nodes"),
                  ("list", "", "persistentvolumeclaims"), ("watch", "", "persistentvolumeclaims"),
                  ("list", "", "persistentvolumes"), ("watch", "", "persistentvolumes"),
                  ("list", "", "namespaces"), ("watch", "", "namespaces"),
                  ("list", "", "services"), ("watch", "", "services"),
                  ("list", "storage.k8s.io", "storageclasses"),
                  ("watch", "storage.k8s.io", "storageclasses"),
                  ("list", "storage.k8s.io", "csinodes"), ("watch", "storage.k8s.io", "csinodes"),
                  ("list", "storage.k8s.io", "csidrivers"),
                  ("watch", "storage.k8s.io", "csidrivers"),
                  ("list", "scheduling.x-k8s.io", "podgroups"),
                  ("watch", "scheduling.x-k8s.io", "podgroups"),
                  ("create", "", "pods", "binding"), ("patch", "", "pods", "status"),
                  ("create", "events.k8s.io", "events"), ("patch", "events.k8s.io", "events"),
                  ("patch", "scheduling.x-k8s.io", "podgroups", "status"),
                  # VolumeBinding's PreBind patches claims and static PVs (never updates them).
                  ("patch", "", "persistentvolumeclaims"), ("patch", "", "persistentvolumes"),
                  # DefaultPreemption deletes victims and reads PodDisruptionBudgets.
                  ("delete", "", "pods"), ("list", "policy", "poddisruptionbudgets"),
                  ("watch", "policy", "poddisruptionbudgets")]
        # DynamicResources: informers on resource.k8s.io/v1, and the claim status writes (the
        # API server also authorizes resourceclaims/binding for allocation and reservedFor).
        needed += [(verb, "resource.k8s.io", resource) for verb in ("get", "list", "watch")
                   for resource in ("deviceclasses", "resourceslices", "resourceclaims",
                                    "resourceclaimtemplates", "devicetaintrules")]
        needed += [(verb, "resource.k8s.io", "resourceclaims", sub) for verb in ("update", "patch")
                   for sub in ("status", "binding")]
        # PreBind's finalizer patch; the claim of DRA-backed extended resources, created by
        # PreBind and deleted by Unreserve / PostFilter.
        needed += [(verb, "resource.k8s.io", "resourceclaims")
                   for verb in ("patch", "create", "delete")]
        # ReplicatedStorage's optional informers (Deckhouse replicated storage).
        needed += [(verb, "storage.deckhouse.io", resource) for verb in ("list", "watch")
                   for resource in ("replicatedstorageclasses", "replicatedstoragepools",
                                    "lvmvolumegroups", "lvmlogicalvolumes", "replicatedvolumes")]
        # The secure port's delegated authentication and authorization.
        needed += [("create", "authentication.k8s.io", "tokenreviews"),
                   ("create", "authorization.k8s.io", "subjectaccessreviews")]
        for verb, group, resource, *sub in needed:
            self.assertTrue(allowed(verb, group, resource, *(sub or [""]), ns="apps"),
                            f"berth needs {verb} {group}/{resource}{'/' + sub[0] if sub else ''}")
        self.assertTrue(allowed("get", "", "configmaps", ns="kube-system",
                                name="extension-apiserver-authentication"),
                        "berth needs to read the secure port's client CA settings")
        self.assertFalse(allowed("get", "", "configmaps", ns="kube-system", name="other"))
        for verb in ("get", "create", "update"):
            self.assertTrue(allowed(verb, "coordination.k8s.io", "leases", ns=NS,
                                    name="berth-scheduler"), f"berth needs {verb} its Lease")
        not_needed = [("update", "", "pods", ""), ("patch", "", "pods", ""),
                      ("create", "", "pods", ""),
                      ("update", "", "pods", "status"), ("create", "", "pods", "eviction"),
                      ("get", "", "nodes", ""), ("patch", "", "nodes", ""),
                      ("update", "", "nodes", "status"), ("get", "", "secrets", ""),
                      ("list", "", "secrets", ""), ("list", "", "configmaps", ""),
                      ("create", "", "events", ""), ("update", "events.k8s.io", "events", ""),
                      ("delete", "events.k8s.io", "events", ""),
                      ("create", "scheduling.x-k8s.io", "podgroups", ""),
                      ("update", "scheduling.x-k8s.io", "podgroups", ""),
                      ("delete", "scheduling.x-k8s.io", "podgroups", ""),
                      ("update", "scheduling.x-k8s.io", "podgroups", "status"),
                      ("update", "", "persistentvolumeclaims", ""),
                      ("update", "", "persistentvolumes", ""),
                      ("create", "", "serviceaccounts", "token"),
                      ("update", "storage.deckhouse.io", "lvmvolumegroups", ""),
                      ("create", "storage.deckhouse.io", "lvmlogicalvolumes", ""),
                      ("update", "resource.k8s.io", "resourceclaims", ""),
                      ("update", "resource.k8s.io", "resourceclaims", "driver"),
                      ("create", "resource.k8s.io", "resourceslices", ""),
                      ("update", "resource.k8s.io", "resourceslices", ""),
                      ("update", "resource.k8s.io", "deviceclasses", ""),
                      ("update", "resource.k8s.io", "devicetaintrules", ""),
                      ("create", "resource.k8s.io", "resourceclaimtemplates", ""),
                      ("escalate", "rbac.authorization.k8s.io", "clusterroles", "")]
        for verb, group, resource, sub in not_needed:
            self.assertFalse(allowed(verb, group, resource, sub, ns="apps"),
                             f"berth should not be allowed {verb} {group}/{resource}/{sub}")
        for verb, ns, name in (("create", "default", ""), ("delete", NS, "berth-scheduler"),
                               ("patch", NS, "berth-scheduler"), ("list", NS, ""),
                               ("watch", NS, ""), ("get", NS, "other"),
                               ("update", NS, "other"), ("get", "kube-system", "berth-scheduler")):
            self.assertFalse(allowed(verb, "coordination.k8s.io", "leases", ns=ns, name=name),
                             f"berth should not be allowed {verb} leases {ns}/{name}")


if __name__ == "__main__":
    unittest.main()
