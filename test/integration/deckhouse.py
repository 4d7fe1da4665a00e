"""Deckhouse replicated-storage objects (storage.deckhouse.io/v1alpha1) for integration tests.

Shared by test_replicated_storage.py (`berth run`) and test_extender.py (kube-scheduler with
`berth extender`). The CRDs come from crds/replicated-storage.yaml (minimal structural schemas; a
JSON `List`, which is also YAML, so the stdlib reads it). No Deckhouse component runs: tests create
volume groups, pools, classes and replicas themselves and play the PV controller.
"""
import json
import os

import kube
from kube import wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
GROUP = "/apis/storage.deckhouse.io/v1alpha1"
PROVISIONER = "replicated.csi.storage.deckhouse.io"
STORAGE_LABEL = "storage.deckhouse.io/sds-replicated-volume-node"
PLURALS = ("replicatedstorageclasses", "replicatedstoragepools", "lvmvolumegroups",
           "lvmlogicalvolumes", "replicatedvolumes")


def load_crds():
    with open(os.path.join(HERE, "crds", "replicated-storage.yaml")) as f:
        return json.load(f)["items"]


def crds_served(c):
    try:
        for plural in PLURALS:
            c.get(f"{GROUP}/{plural}")
        return True
    except kube.ApiError:
        return False


def install_crds(c):
    """Creates the five CRDs and waits until the API server serves them."""
    for crd in load_crds():
        c.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    wait_for(lambda: crds_served(c), 30, what="storage.deckhouse.io CRDs served")


def create(c, plural, kind, name, spec=None, status=None):
    obj = {"apiVersion": "storage.deckhouse.io/v1alpha1", "kind": kind,
           "metadata": {"name": name}, "spec": spec or {}}
    if status is not None:
        obj["status"] = status
    return c.create(f"{GROUP}/{plural}", obj)


def storage_node(c, name, zone=None, storage=True, ready=True):
    """A node with 8 CPU / 32Gi; `storage` adds the replicated-storage node label; `ready=False`
    sets Ready=False (no node controller runs to taint it)."""
    labels = {"kubernetes.io/hostname": name}
    if zone:
        labels["topology.kubernetes.io/zone"] = zone
    if storage:
        labels[STORAGE_LABEL] = ""
    res = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    c.create("/api/v1/nodes", {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "status": {"capacity": res, "allocatable": res,
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}})


def lvg(c, name, node, size, free):
    """A thick LVMVolumeGroup on `node`."""
    create(c, "lvmvolumegroups", "LVMVolumeGroup", name,
           {"type": "Local", "local": {"nodeName": node}},
           {"phase": "Ready", "nodes": [{"name": node}], "vgSize": size, "vgFree": free})


def replicated_volume(c, name, diskful_node, size="1Gi"):
    """A ReplicatedVolume whose one diskful replica is on `diskful_node`."""
    create(c, "replicatedvolumes", "ReplicatedVolume", name, {"size": size},
           {"datamesh": {"members": [
               {"name": name + "-0", "type": "Diskful", "nodeName": diskful_node}]}})


def bind(c, pvc, volume, size):
    """Plays the PV controller: a PV `volume` of the replicated provisioner bound to the claim
    object `pvc` (as returned by create), both with phase Bound."""
    name = pvc["metadata"]["name"]
    c.create("/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": volume},
        "spec": {"storageClassName": pvc["spec"]["storageClassName"],
                 "capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"],
                 "claimRef": {"kind": "PersistentVolumeClaim", "namespace": "default",
                              "name": name, "uid": pvc["metadata"]["uid"]},
                 "csi": {"driver": PROVISIONER, "volumeHandle": volume}}})
    c.request("PATCH", f"/api/v1/persistentvolumes/{volume}/status",
              {"status": {"phase": "Bound"}}, "application/merge-patch+json")
    c.request("PATCH", f"/api/v1/namespaces/default/persistentvolumeclaims/{name}",
              {"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
               "spec": {"volumeName": volume}}, "application/merge-patch+json")
    c.request("PATCH", f"/api/v1/namespaces/default/persistentvolumeclaims/{name}/status",
              {"status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                          "capacity": {"storage": size}}}, "application/merge-patch+json")


def claim(c, name, size, sc="replicated-local", volume=None):
    """A PVC in `default`; with `volume`, bound to a new PV of that name."""
    pvc = c.create("/api/v1/namespaces/default/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"storageClassName": sc, "accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": size}}}})
    if volume:
        bind(c, pvc, volume, size)
    return pvc


def local_class(c, pool, volume_groups, name="replicated-local"):
    """A thick (LVM) ReplicatedStoragePool over `volume_groups`, a WaitForFirstConsumer
    StorageClass of the replicated provisioner and its ReplicatedStorageClass with volumeAccess
    Local, all for the class `name`."""
    create(c, "replicatedstoragepools", "ReplicatedStoragePool", pool,
           {"type": "LVM", "lvmVolumeGroups": [{"name": vg} for vg in volume_groups]})
    c.create("/apis/storage.k8s.io/v1/storageclasses", {
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
        "provisioner": PROVISIONER, "volumeBindingMode": "WaitForFirstConsumer"})
    create(c, "replicatedstorageclasses", "ReplicatedStorageClass", name,
           {"storagePool": pool, "volumeAccess": "Local", "reclaimPolicy": "Delete",
            "topology": "Ignored"})
