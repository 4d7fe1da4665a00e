"""ReplicatedStorage (seed 000) with `berth run` against a real kube-apiserver + etcd.

The five storage.deckhouse.io CRDs come from crds/replicated-storage.yaml (minimal structural
schemas; a JSON `List`, which is also YAML, so the stdlib reads it). No Deckhouse component runs:
the test creates the volume groups, pools, classes and replicas itself, and plays the PV
controller and CSI provisioner when berth's VolumeBinding annotates a claim with its selected
node (a PV, the claim bound to it, and the replica's LVMLogicalVolume on that node's volume group,
not carved yet).
"""
import json
import os
import threading
import time
import unittest

import kube
from kube import config, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "/apis/storage.deckhouse.io/v1alpha1"
PROVISIONER = "replicated.csi.storage.deckhouse.io"
STORAGE_LABEL = "storage.deckhouse.io/sds-replicated-volume-node"
PROFILE = """  plugins:
    multiPoint:
      enabled: [{name: ReplicatedStorage, weight: 5}]
"""
VG_OF_NODE = {"n1": "vg-1", "n2": "vg-2", "n5": "vg-5"}


def load_crds():
    with open(os.path.join(HERE, "crds", "replicated-storage.yaml")) as f:
        return json.load(f)["items"]


class ReplicatedStorageTest(kube.ClusterTestCase):
    def setUp(self):
        super().setUp()
        for crd in load_crds():
            self.c.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        wait_for(self._crds_served, 30, what="storage.deckhouse.io CRDs served")
        self.stop = threading.Event()
        self.provisioned = set()
        self.provisioner = threading.Thread(target=self._provision_loop, daemon=True)

    def _crds_served(self):
        try:
            for plural in ("replicatedstorageclasses", "replicatedstoragepools", "lvmvolumegroups",
                           "lvmlogicalvolumes", "replicatedvolumes"):
                self.c.get(f"{GROUP}/{plural}")
            return True
        except kube.ApiError:
            return False

    def tearDown(self):
        self.stop.set()
        if self.provisioner.is_alive():
            self.provisioner.join(5)
        super().tearDown()

    # ---- objects ----
    def deckhouse(self, plural, kind, name, spec=None, status=None):
        obj = {"apiVersion": "storage.deckhouse.io/v1alpha1", "kind": kind,
               "metadata": {"name": name}, "spec": spec or {}}
        if status is not None:
            obj["status"] = status
        return self.c.create(f"{GROUP}/{plural}", obj)

    def node(self, name, zone, storage=True, ready=True):
        labels = {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}
        if storage:
            labels[STORAGE_LABEL] = ""
        res = {"cpu": "8", "memory": "32Gi", "pods": "110"}
        self.c.create("/api/v1/nodes", {
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
            "status": {"capacity": res, "allocatable": res,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}})

    def lvg(self, name, node, size, free):
        self.deckhouse("lvmvolumegroups", "LVMVolumeGroup", name,
                       {"type": "Local", "local": {"nodeName": node}},
                       {"phase": "Ready", "nodes": [{"name": node}], "vgSize": size,
                        "vgFree": free})

    def claim(self, name, size, sc="replicated-local", volume=None):
        spec = {"storageClassName": sc, "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": size}}}
        meta = {"name": name, "namespace": "default"}
        if volume:
            spec["volumeName"] = volume
            meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
        pvc = self.c.create("/api/v1/namespaces/default/persistentvolumeclaims",
                            {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                             "metadata": meta, "spec": spec})
        if volume:
            self.pv(volume, size, sc, pvc)
            self.bind_status(name)
        return pvc

    def pv(self, name, size, sc, pvc):
        self.c.create("/api/v1/persistentvolumes", {
            "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"storageClassName": sc, "capacity": {"storage": size},
                     "accessModes": ["ReadWriteOnce"],
                     "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default",
                                  "name": pvc["metadata"]["name"],
                                  "uid": pvc["metadata"]["uid"]},
                     "csi": {"driver": PROVISIONER, "volumeHandle": name}}})
        self.c.request("PATCH", f"/api/v1/persistentvolumes/{name}/status",
                       {"status": {"phase": "Bound"}}, "application/merge-patch+json")

    def bind_status(self, claim):
        self.c.request("PATCH", f"/api/v1/namespaces/default/persistentvolumeclaims/{claim}/status",
                       {"status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"]}},
                       "application/merge-patch+json")

    def pod(self, name, claim):
        self.c.pod(name, extra_spec={"volumes": [{"name": "data",
                                                  "persistentVolumeClaim": {"claimName": claim}}]})

    # ---- the PV controller and provisioner's part ----
    def _provision_loop(self):
        while not self.stop.is_set():
            try:
                for pvc in self.c.items("/api/v1/namespaces/default/persistentvolumeclaims"):
                    node = pvc["metadata"].get("annotations", {}).get(
                        "volume.kubernetes.io/selected-node")
                    name = pvc["metadata"]["name"]
                    if not node or pvc["spec"].get("volumeName") or name in self.provisioned:
                        continue
                    self._provision(pvc, node)
                    self.provisioned.add(name)
            except (kube.ApiError, OSError) as e:  # retried on the next round
                print("provisioner:", e)
            time.sleep(0.2)

    def _provision(self, pvc, node):
        name = pvc["metadata"]["name"]
        size = pvc["spec"]["resources"]["requests"]["storage"]
        volume = "pvc-" + pvc["metadata"]["uid"]
        self.pv(volume, size, pvc["spec"]["storageClassName"], pvc)
        self.c.request("PATCH", f"/api/v1/namespaces/default/persistentvolumeclaims/{name}",
                       {"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                        "spec": {"volumeName": volume}}, "application/merge-patch+json")
        self.bind_status(name)
        # The replica's logical volume on the node's group, requested but not carved yet.
        self.deckhouse("lvmlogicalvolumes", "LVMLogicalVolume", f"{volume}-{VG_OF_NODE[node]}",
                       {"actualLVNameOnTheNode": volume, "type": "Thick", "size": size,
                        "lvmVolumeGroupName": VG_OF_NODE[node]})

    def bound(self):
        return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in self.c.pods()
                if p["spec"].get("nodeName")}

    def failed_note(self, pod):
        notes = [e["note"] for e in self.c.events() if e.get("reason") == "FailedScheduling"
                 and e["regarding"]["name"] == pod]
        return notes[-1] if notes else None

    def test_pods_land_only_where_the_seed_allows(self):
        # n1: 50Gi free; n2: 10Gi free; n3: storage node without a volume group (zone-b);
        # n4: not a storage node; n5: storage node with room but NotReady.
        self.node("n1", "zone-a")
        self.node("n2", "zone-a")
        self.node("n3", "zone-b")
        self.node("n4", "zone-b", storage=False)
        self.node("n5", "zone-b", ready=False)
        self.lvg("vg-1", "n1", "100Gi", "50Gi")
        self.lvg("vg-2", "n2", "100Gi", "10Gi")
        self.lvg("vg-5", "n5", "500Gi", "500Gi")
        self.deckhouse("replicatedstoragepools", "ReplicatedStoragePool", "rsp-thick",
                       {"type": "LVM", "lvmVolumeGroups": [{"name": "vg-1"}, {"name": "vg-2"},
                                                           {"name": "vg-5"}]})
        self.c.create("/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "replicated-local"}, "provisioner": PROVISIONER,
            "volumeBindingMode": "WaitForFirstConsumer"})
        self.deckhouse("replicatedstorageclasses", "ReplicatedStorageClass", "replicated-local",
                       {"storagePool": "rsp-thick", "volumeAccess": "Local",
                        "reclaimPolicy": "Delete", "topology": "Ignored"})
        # A bound Local volume whose only diskful replica is on n2 (a tie-breaker on n1).
        self.deckhouse("replicatedvolumes", "ReplicatedVolume", "pv-r", {"size": "1Gi"},
                       {"datamesh": {"members": [
                           {"name": "pv-r-0", "type": "Diskful", "nodeName": "n2"},
                           {"name": "pv-r-1", "type": "TieBreaker", "nodeName": "n1"}]}})
        self.claim("data-r", "1Gi", volume="pv-r")
        for claim in ("data-a", "data-b", "data-c"):
            self.claim(claim, "20Gi")
        self.provisioner.start()
        self.c.start_berth("berth", config(extra=PROFILE))

        self.pod("r", "data-r")
        wait_for(lambda: self.bound().get("r"), 30, what="pod r bound")
        self.assertEqual(self.bound()["r"], "n2", "r must run where its diskful replica is")

        # a and b take 40Gi of n1's 50Gi (n2 has only 10Gi); c then fits nowhere, whether a's
        # and b's space is still held by berth or already shown by their LVMLogicalVolumes.
        for name in ("a", "b", "c"):
            self.pod(name, "data-" + name)
        wait_for(lambda: {"a", "b"} <= set(self.bound()), 60, what="pods a and b bound")
        self.assertEqual(self.bound()["a"], "n1")
        self.assertEqual(self.bound()["b"], "n1")
        for name in ("data-a", "data-b"):  # VolumeBinding's choice agrees with the pod's node
            pvc = self.c.get(f"/api/v1/namespaces/default/persistentvolumeclaims/{name}")
            selected = pvc["metadata"].get("annotations", {}).get(
                "volume.kubernetes.io/selected-node")
            self.assertIn(selected, (None, "n1"), name)
        note = wait_for(lambda: self.failed_note("c"), 30, what="FailedScheduling for c")
        for reason in (
                "2 PVC default/data-c: not enough space in ReplicatedStoragePool rsp-thick on the "
                "node (needs 20Gi)",
                "1 PVC default/data-c: node has no Ready LVMVolumeGroup of ReplicatedStoragePool "
                "rsp-thick",
                "1 node(s) are not replicated storage nodes",
                "1 node(s) are offline: Ready condition is not True"):
            self.assertIn(reason, note)
        self.assertTrue(note.startswith("0/5 nodes are available: "), note)
        time.sleep(2)
        self.assertNotIn("c", self.bound())

        # Room appears on n2 (its volume group grows): c is retried and lands there.
        self.c.request("PATCH", f"{GROUP}/lvmvolumegroups/vg-2",
                       {"status": {"vgSize": "200Gi", "vgFree": "110Gi"}},
                       "application/merge-patch+json")
        wait_for(lambda: self.bound().get("c"), 60, what="pod c bound after vg-2 grew")
        self.assertEqual(self.bound()["c"], "n2")

    def test_without_the_crds_nothing_is_replicated(self):
        # A cluster without Deckhouse: the optional informers find nothing, a pod whose claim
        # names the replicated provisioner is rejected for its missing ReplicatedStorageClass,
        # and pods without such claims schedule as usual.
        c = self.c
        for crd in load_crds():
            c.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                     f"{crd['metadata']['name']}")
        wait_for(lambda: not self._crds_served(), 30, what="CRDs gone")
        self.node("n1", "zone-a")
        c.create("/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "replicated-local"}, "provisioner": PROVISIONER,
            "volumeBindingMode": "WaitForFirstConsumer"})
        self.claim("data", "1Gi")
        c.start_berth("berth", config(extra=PROFILE))
        c.pod("plain")
        self.pod("replicated", "data")
        wait_for(lambda: self.bound().get("plain"), 30, what="plain pod bound")
        note = wait_for(lambda: self.failed_note("replicated"), 30,
                        what="FailedScheduling for the replicated pod")
        self.assertIn('PVC default/data: ReplicatedStorageClass "replicated-local" not found', note)


if __name__ == "__main__":
    unittest.main(verbosity=2)
