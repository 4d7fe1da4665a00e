#!/usr/bin/env python3
"""Writes the seed corpus of test/fuzz/corpus/<target>/ from docs/examples/, the conformance
cases of test/conformance/cases/ and a few hand-written inputs. Run from the repository root; it
replaces the corpus folders. The corpus is kept small (a few dozen files per target)."""
import glob
import hashlib
import json
import os
import shutil

import yaml

ROOT = "test/fuzz/corpus"
corpus = {}


def add(target, data):
    if isinstance(data, str):
        data = data.encode()
    corpus.setdefault(target, []).append(data)


def docs_of(path):
    return [d for d in yaml.safe_load_all(open(path)) if d]


examples = sorted(glob.glob("docs/examples/*.yaml") + glob.glob("docs/examples/*/*.yaml"))
cluster_files = [p for p in examples if "config" not in os.path.basename(p)
                 and "policy.yaml" not in p]
config_files = [p for p in examples if "config" in os.path.basename(p)]
cases = sorted(glob.glob("test/conformance/cases/*.json"))

# Cluster files, whole.
for p in cluster_files:
    add("fuzz_cluster_file", open(p).read())
add("fuzz_cluster_file", "nodes: 3\n")
add("fuzz_cluster_file", "")

# One object per seed, by kind (the first of each kind), as YAML and as JSON.
seen = {}
for p in cluster_files:
    for d in docs_of(p):
        if isinstance(d, dict) and "kind" in d:
            seen.setdefault(d["kind"], d)
for p in cases:
    for d in json.load(open(p)).get("objects", []):
        if isinstance(d, dict) and "kind" in d:
            seen.setdefault(d["kind"], d)
for kind, d in sorted(seen.items()):
    add("fuzz_yaml", yaml.safe_dump(d, sort_keys=False))
    add("fuzz_json", json.dumps(d))
add("fuzz_yaml", "a: &x [1, 2]\nb: *x\n---\n- {c: ~, d: 1e3, e: 'q', f: 0x10}\n")
add("fuzz_yaml", "kind: Pod\napiVersion: v1\nmetadata: {name: p, labels: {a: b}}\n"
    "spec: {containers: [{name: c, resources: {requests: {cpu: 100m, memory: 1Gi}}}]}\n")
add("fuzz_json", '{"a":[1,2.5,-3,true,false,null,"\\u00e9"],"b":{"c":{}}}')
add("fuzz_json", '[]')
add("fuzz_json", '[0e50, 0e-50, -0E+5, 1e-400, 123456789012345678901234567890]')  # RapidJSON 0eN

# Configs and Policies.
for p in config_files:
    add("fuzz_config", open(p).read())
for p in cases[:10]:
    c = json.load(open(p)).get("config")
    if c:
        add("fuzz_config", json.dumps(c))
add("fuzz_config", """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: true, leaseDuration: 15s, renewDeadline: 10s, retryPeriod: 2s}
clientConnection: {qps: 50, burst: 100}
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
percentageOfNodesToScore: 50
profiles:
- schedulerName: a
  plugins:
    score:
      disabled: [{name: '*'}]
      enabled: [{name: NodeResourcesFit, weight: 2}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 1}]
        requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}
extenders:
- urlPrefix: http://127.0.0.1:8888
  filterVerb: filter
  weight: 1
""")
add("fuzz_policy", open("docs/examples/policy/policy.yaml").read())
add("fuzz_policy", json.dumps({
    "kind": "Policy", "apiVersion": "v1",
    "predicates": [{"name": "PodFitsResources"}, {"name": "MatchNodeSelector"},
                   {"name": "zone", "argument": {"serviceAffinity": {"labels": ["zone"]}}}],
    "priorities": [{"name": "LeastRequestedPriority", "weight": 1},
                   {"name": "rack", "weight": 2,
                    "argument": {"labelPreference": {"label": "rack", "presence": True}}}],
    "extenders": [{"urlPrefix": "http://e", "filterVerb": "filter", "weight": 1}],
    "hardPodAffinitySymmetricWeight": 10}))

# Kubeconfigs.
add("fuzz_kubeconfig", """apiVersion: v1
kind: Config
current-context: c
clusters:
- name: k
  cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true}
contexts:
- name: c
  context: {cluster: k, user: u, namespace: ns}
- name: fuzz
  context: {cluster: k, user: t}
users:
- name: u
  user: {token: abc}
- name: t
  user: {client-certificate-data: 'LS0tLS1CRUdJTg==', client-key-data: 'LS0tLQ=='}
""")
add("fuzz_kubeconfig", '{"apiVersion":"v1","kind":"Config","current-context":"c",'
    '"clusters":[{"name":"k","cluster":{"server":"http://localhost:8080"}}],'
    '"contexts":[{"name":"c","context":{"cluster":"k","user":"u"}}],'
    '"users":[{"name":"u","user":{"username":"a","password":"b"}}]}')
add("fuzz_kubeconfig", "aGVsbG8gd29ybGQ=")

# Extender wire: first byte picks the decoder (0 args, 1 filter result, 2 priorities, 3 binding).
pod = seen.get("Pod", {"kind": "Pod", "metadata": {"name": "p"}})
node = seen.get("Node", {"kind": "Node", "metadata": {"name": "n1"}})
add("fuzz_extender_wire", b"\x00" + json.dumps({"Pod": pod, "Nodes": {"Items": [node]}}).encode())
add("fuzz_extender_wire", b"\x00" + json.dumps({"Pod": pod, "NodeNames": ["n1", "n2"]}).encode())
add("fuzz_extender_wire", b"\x01" + json.dumps({"NodeNames": ["n1"], "FailedNodes": {"n2": "no"},
                                               "FailedAndUnresolvableNodes": {}, "Error": ""}).encode())
add("fuzz_extender_wire", b"\x01" + json.dumps({"Nodes": {"Items": [node]}}).encode())
add("fuzz_extender_wire", b"\x02" + json.dumps([{"Host": "n1", "Score": 5}, {"Host": "n2", "Score": 0}]).encode())
add("fuzz_extender_wire", b"\x03" + json.dumps({"Error": "boom"}).encode())
add("fuzz_extender_wire", b"\x02" + b'[{"Host": "n1", "Score": 0e5}]')

# HTTP requests.
add("fuzz_http_request", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
add("fuzz_http_request", "POST /filter HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
add("fuzz_http_request", "POST /prioritize HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    "2\r\n{}\r\n0\r\n\r\n")
add("fuzz_http_request", "GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")

# Quantities.
for q in ["0", "1", "1500m", "1.5", "2Gi", "2G", "1e3", "512Mi", "100k", "-1", "+5", "1E-3",
          "0.0001", "9223372036854775807", "8Ei", "123456789n", "10u", ".5", "5."]:
    add("fuzz_quantity", q)

# Times (first byte odd) and Go durations (first byte even).
for t in ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456789+05:30", "1970-01-01T00:00:00-00:00",
          "2024-02-29t23:59:60z"]:
    add("fuzz_time", "1" + t)
for d in ["15s", "1h2m3.5s", "-1.5h", "300ms", "1us", "1µs", "0", "2562047h"]:
    add("fuzz_time", "0" + d)

# Selectors.
add("fuzz_selector", """labels: {zone: b, disk: ssd}
labelSelector:
  matchLabels: {app: web}
  matchExpressions:
  - {key: zone, operator: In, values: [a, b]}
  - {key: tier, operator: NotIn, values: ['2']}
  - {key: disk, operator: Exists}
  - {key: gpu, operator: DoesNotExist}
""")
add("fuzz_selector", """nodeSelector:
  nodeSelectorTerms:
  - matchExpressions:
    - {key: tier, operator: Gt, values: ['0']}
    - {key: tier, operator: Lt, values: ['5']}
    matchFields:
    - {key: metadata.name, operator: In, values: [node-1]}
nodeAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 10
    preference: {matchExpressions: [{key: app, operator: Exists}]}
topologySpreadConstraint:
  maxSkew: 1
  topologyKey: zone
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {app: web}}
  minDomains: 2
""")

# CEL selectors: the expressions of test/cel/corpus.jsonl (each once, with the device of its
# first line), every regex case and an even spread of the rest; "selector\n---\ndevice JSON".
cel_lines = [json.loads(l) for l in open("test/cel/corpus.jsonl", encoding="utf-8") if l.strip()]
cel_seen = {}
for c in cel_lines:
    cel_seen.setdefault(c["expr"], c["device"])
cel_exprs = [e for e in cel_seen if len(e) < 4096]
cel_regex = [e for e in cel_exprs if any(f in e for f in ("matches(", "find(", "findAll("))]
cel_other = [e for e in cel_exprs if e not in cel_regex]
for e in cel_regex + cel_other[::max(1, len(cel_other) // 60)]:
    add("fuzz_cel", e + "\n---\n" + json.dumps(cel_seen[e], ensure_ascii=False))
add("fuzz_cel", 'device.driver == "gpu.example.com"')
LIMIT = {"fuzz_cel": 250}

for target, seeds in corpus.items():
    d = os.path.join(ROOT, target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for data in seeds[:LIMIT.get(target, 40)]:
        name = hashlib.sha1(data).hexdigest()[:16]
        open(os.path.join(d, name), "wb").write(data)
    print(f"{target}: {len(os.listdir(d))} seeds")
