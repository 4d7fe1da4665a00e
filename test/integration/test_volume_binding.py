"""VolumeBinding with `berth run` against a real kube-apiserver + etcd (test/cluster).

No controller-manager or provisioner runs in the test cluster, so where a PV controller or an
external provisioner would act, the test does their part through the API, as they would.
Run: python3 -m unittest -v test_volume_binding  (from this folder), or through ctest.
"""
import signal
import time
import unittest

import kube
from kube import config, wait_for

NS = "default"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"


class VolumeBindingTest(kube.ClusterTestCase):
    # ---- objects ----
    def storage_class(self, name, mode, provisioner="example.com/fake-provisioner"):
        return self.c.create("/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": name}, "provisioner": provisioner,
            "volumeBindingMode": mode})

    def claim(self, name, storage_class, volume_name=None, annotations=None):
        spec = {"accessModes": ["ReadWriteOnce"], "storageClassName": storage_class,
                "resources": {"requests": {"storage": "1Gi"}}}
        if volume_name:
            spec["volumeName"] = volume_name
        return self.c.create(f"/api/v1/namespaces/{NS}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": NS, "annotations": annotations or {}},
            "spec": spec})

    def local_volume(self, name, storage_class, node, claim=None):
        spec = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "storageClassName": storage_class,
                "persistentVolumeReclaimPolicy": "Delete",
                "local": {"path": f"/mnt/disks/{name}"},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}
        if claim is not None:
            spec["claimRef"] = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                "namespace": NS, "name": claim["metadata"]["name"],
                                "uid": claim["metadata"]["uid"]}
        return self.c.create("/api/v1/persistentvolumes", {
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": spec})

    def bind_claim(self, claim_name, pv_name):
        """What the PV controller does once a PV exists for the claim."""
        path = f"/api/v1/namespaces/{NS}/persistentvolumeclaims/{claim_name}"
        self.c.request("PATCH", path, {
            "metadata": {"annotations": {BIND_COMPLETED: "yes",
                                         "pv.kubernetes.io/bound-by-controller": "yes"}},
            "spec": {"volumeName": pv_name}}, content_type="application/merge-patch+json")
        self.c.request("PATCH", path + "/status", {"status": {"phase": "Bound"}},
                       content_type="application/merge-patch+json")

    def pod_with_claim(self, name, claim):
        return self.c.pod(name, extra_spec={"volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": claim}}]})

    def node_of(self, pod):
        return self.c.get(f"/api/v1/namespaces/{NS}/pods/{pod}")["spec"].get("nodeName")

    def failed_scheduling(self, pod):
        return [e for e in self.c.events()
                if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == pod]

    # (c) WaitForFirstConsumer: berth picks a node, annotates the claim with it and waits; the
    #     test provisions a PV on that node and binds the claim; berth then binds the pod there.
    def test_wait_for_first_consumer_claim_is_provisioned_on_the_selected_node(self):
        for i in range(3):
            self.c.node(f"n{i}")
        self.storage_class("wait", "WaitForFirstConsumer")
        self.claim("data", "wait")
        berth = self.c.start_berth("berth", config())
        self.pod_with_claim("app", "data")

        def selected():
            pvc = self.c.get(f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data")
            return pvc["metadata"].get("annotations", {}).get(SELECTED_NODE)

        node = wait_for(selected, 30, what="the selected-node annotation on claim data")
        self.assertIn(node, {"n0", "n1", "n2"})
        # Not bound yet: berth waits in PreBind for the claim to be bound.
        self.assertIsNone(self.node_of("app"), "pod bound before its volume")

        # The external provisioner and the PV controller.
        claim = self.c.get(f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data")
        self.local_volume("pvc-" + claim["metadata"]["uid"], "wait", node, claim=claim)
        self.bind_claim("data", "pvc-" + claim["metadata"]["uid"])

        wait_for(lambda: self.node_of("app") == node, 30, what=f"app bound to {node}")
        self.assertIsNone(berth.poll(), "berth exited")
        # The claim kept the annotation berth wrote.
        self.assertEqual(selected(), node)

    # SIGTERM while a binding waits for a provisioner that never comes: berth exits promptly
    #     instead of holding its binding worker for bindTimeoutSeconds (600 s).
    def test_shutdown_does_not_wait_for_the_provisioner(self):
        self.c.node("n0")
        self.storage_class("wait", "WaitForFirstConsumer")
        self.claim("data", "wait")
        berth = self.c.start_berth("berth", config())
        self.pod_with_claim("app", "data")

        def selected():
            pvc = self.c.get(f"/api/v1/namespaces/{NS}/persistentvolumeclaims/data")
            return pvc["metadata"].get("annotations", {}).get(SELECTED_NODE)

        wait_for(selected, 30, what="the selected-node annotation on claim data")
        start = time.time()
        berth.send_signal(signal.SIGTERM)
        code = berth.wait(timeout=30)
        self.assertEqual(code, 0, self.c.log_of(berth)[-2000:])
        self.assertLess(time.time() - start, 15, "shutdown waited for the volume binding")
        self.assertIsNone(self.node_of("app"))

    # Static binding: berth pre-binds the smallest Available PV that fits on the chosen node
    #     (spec.claimRef), the test completes the binding as the PV controller would.
    def test_wait_for_first_consumer_claim_binds_a_static_volume(self):
        for i in range(3):
            self.c.node(f"n{i}")
        self.storage_class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")
        self.local_volume("pv-on-n2", "local", "n2")
        # The PV controller marks a new unbound PV Available; only those are candidates.
        self.c.request("PATCH", "/api/v1/persistentvolumes/pv-on-n2/status",
                       {"status": {"phase": "Available"}},
                       content_type="application/merge-patch+json")
        claim = self.claim("logs", "local")
        self.c.start_berth("berth", config())
        self.pod_with_claim("logger", "logs")

        def claim_ref():
            pv = self.c.get("/api/v1/persistentvolumes/pv-on-n2")
            return pv["spec"].get("claimRef")

        ref = wait_for(claim_ref, 30, what="claimRef on pv-on-n2")
        self.assertEqual((ref["namespace"], ref["name"], ref["uid"]),
                         (NS, "logs", claim["metadata"]["uid"]))
        pv = self.c.get("/api/v1/persistentvolumes/pv-on-n2")
        self.assertEqual(pv["metadata"]["annotations"].get("pv.kubernetes.io/bound-by-controller"),
                         "yes")
        self.assertIsNone(self.node_of("logger"), "pod bound before its volume")
        self.bind_claim("logs", "pv-on-n2")
        wait_for(lambda: self.node_of("logger") == "n2", 30, what="logger bound to n2")

    # A claim bound to a local PV pins the pod to the PV's node; the other nodes are rejected
    # with upstream's reason.
    def test_bound_claim_pins_the_pod_to_the_volume_node(self):
        for i in range(3):
            self.c.node(f"n{i}")
        self.storage_class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")
        claim = self.claim("db-data", "local", volume_name="pv-db",
                           annotations={BIND_COMPLETED: "yes"})
        self.local_volume("pv-db", "local", "n1", claim=claim)
        self.c.request("PATCH", f"/api/v1/namespaces/{NS}/persistentvolumeclaims/db-data/status",
                       {"status": {"phase": "Bound"}},
                       content_type="application/merge-patch+json")
        self.c.start_berth("berth", config())
        self.pod_with_claim("db-0", "db-data")
        wait_for(lambda: self.node_of("db-0") == "n1", 30, what="db-0 bound to n1")
        # A second pod that also needs n1 but asks for more CPU than n1 has left cannot go
        # anywhere else: the other nodes do not match the PV's node affinity.
        self.c.pod("filler", cpu="3500m", extra_spec={"nodeName": "n1"})
        self.c.pod("db-1", cpu="1", extra_spec={"volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "db-data"}}]})
        ev = wait_for(lambda: self.failed_scheduling("db-1"), 30,
                      what="FailedScheduling for db-1")[0]
        self.assertIn("2 node(s) didn't match PersistentVolume's node affinity", ev["note"])
        self.assertIn("1 Insufficient cpu", ev["note"])

    # A missing claim: FailedScheduling with upstream's message; creating the claim (and its
    # volume) requeues the pod, which is then scheduled.
    def test_missing_claim_fails_until_created(self):
        self.c.node("n0")
        self.storage_class("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner")
        self.c.start_berth("berth", config())
        self.pod_with_claim("web", "web-data")
        ev = wait_for(lambda: self.failed_scheduling("web"), 30,
                      what="FailedScheduling for web")[0]
        self.assertTrue(ev["note"].startswith(
            '0/1 nodes are available: persistentvolumeclaim "web-data" not found.'), ev["note"])
        self.assertEqual(ev["type"], "Warning")

        claim = self.claim("web-data", "local", volume_name="pv-web",
                           annotations={BIND_COMPLETED: "yes"})
        self.local_volume("pv-web", "local", "n0", claim=claim)
        wait_for(lambda: self.node_of("web") == "n0", 30, what="web bound after its claim appeared")


if __name__ == "__main__":
    unittest.main()
