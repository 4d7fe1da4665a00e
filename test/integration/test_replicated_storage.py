"""ReplicatedStorage (seed 000) with `berth run` against a real kube-apiserver + etcd.

The five storage.deckhouse.io CRDs come from crds/replicated-storage.yaml (minimal structural
schemas; a JSON `List`, which is also YAML, so the stdlib reads it). No Deckhouse component runs:
the test creates the volume groups, pools, classes and replicas itself, and plays the PV
controller and CSI provisioner when berth's VolumeBinding annotates a claim with its selected
node (a PV, the claim bound to it, and the replica's LVMLogicalVolume on that node's volume group,
not carved yet).
"""
import threading
import time
import unittest

import deckhouse
import kube
from deckhouse import PROVISIONER
from kube import config, wait_for

PROFILE = """  plugins:
    multiPoint:
      enabled: [{name: ReplicatedStorage, weight: 5}]
"""
VG_OF_NODE = {"n1": "vg-1", "n2": "vg-2", "n5": "vg-5"}


class ReplicatedStorageTest(kube.ClusterTestCase):
    def setUp(self):
        super().setUp()
        deckhouse.install_crds(self.c)
        self.stop = threading.Event()
        self.provisioned = set()
        self.provisioner = threading.Thread(target=self._provision_loop, daemon=True)

    def tearDown(self):
        self.stop.set()
        if self.provisioner.is_alive():
            self.provisioner.join(5)
        super().tearDown()

    # ---- objects ----
    def deckhouse(self, plural, kind, name, spec=None, status=None):
        return deckhouse.create(self.c, plural, kind, name, spec, status)

    def node(self, name, zone, storage=True, ready=True):
        deckhouse.storage_node(self.c, name, zone, storage, ready)

    def lvg(self, name, node, size, free):
        deckhouse.lvg(self.c, name, node, size, free)

    def claim(self, name, size, sc="replicated-local", volume=None):
        return deckhouse.claim(self.c, name, size, sc, volume)

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
        deckhouse.bind(self.c, pvc, volume, size)
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
        deckhouse.local_class(self.c, "rsp-thick", ["vg-1", "vg-2", "vg-5"])
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
        self.c.request("PATCH", f"{deckhouse.GROUP}/lvmvolumegroups/vg-2",
                       {"status": {"vgSize": "200Gi", "vgFree": "110Gi"}},
                       "application/merge-patch+json")
        wait_for(lambda: self.bound().get("c"), 60, what="pod c bound after vg-2 grew")
        self.assertEqual(self.bound()["c"], "n2")

    def test_without_the_crds_nothing_is_replicated(self):
        # A cluster without Deckhouse: the optional informers find nothing, a pod whose claim
        # names the replicated provisioner is rejected for its missing ReplicatedStorageClass,
        # and pods without such claims schedule as usual.
        c = self.c
        for crd in deckhouse.load_crds():
            c.delete(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                     f"{crd['metadata']['name']}")
        wait_for(lambda: not deckhouse.crds_served(c), 30, what="CRDs gone")
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
