"""Dynamic Resource Allocation with `berth run` against a real kube-apiserver + etcd.

The test plays the DRA driver (it publishes ResourceSlices) and the resource claim controller
(it creates the claims of template-based pod claims and records them in the pod's status).
berth must bind pods only where their devices exist, write each claim's status.allocation and
status.reservedFor, never give one exclusive device to two claims, share a claim between its
pods, and tell a pod that cannot get its devices why, in upstream's words. A pod asking for a
DRA-backed extended resource (a DeviceClass's extendedResourceName) gets a claim berth creates.
Run: python3 -m unittest -v test_dra  (from this folder), or through ctest.
"""
import time
import unittest

import kube
from kube import config, wait_for

DRIVER = "gpu.example.com"
RES = "/apis/resource.k8s.io/v1"


class DraTest(kube.ClusterTestCase):
    def slice_for(self, node, models):
        devices = [{"name": f"gpu-{i}", "attributes": {"model": {"string": m}},
                    "capacity": {"memory": {"value": "80Gi" if m == "a100" else "24Gi"}}}
                   for i, m in enumerate(models)]
        self.c.create(f"{RES}/resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": f"{node}-gpus"},
            "spec": {"driver": DRIVER, "nodeName": node,
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                     "devices": devices}})

    def claim(self, name, count=1, selector=None):
        exactly = {"deviceClassName": "gpu", "count": count}
        if selector:
            exactly["selectors"] = [{"cel": {"expression": selector}}]
        return self.c.create(f"{RES}/namespaces/default/resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}})

    def pod_with(self, name, claim=None, template=None):
        ref = {"name": "gpu"}
        if claim:
            ref["resourceClaimName"] = claim
        else:
            ref["resourceClaimTemplateName"] = template
        return self.c.create("/api/v1/namespaces/default/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"schedulerName": "berth-scheduler", "resourceClaims": [ref],
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "100m"},
                                                   "claims": [{"name": "gpu"}]}}]}})

    def claim_obj(self, name):
        return self.c.get(f"{RES}/namespaces/default/resourceclaims/{name}")

    def bound(self):
        return {p["metadata"]["name"]: p["spec"]["nodeName"]
                for p in self.c.pods() if p["spec"].get("nodeName")}

    def failed_note(self, pod):
        notes = [e["note"] for e in self.c.events()
                 if e.get("reason") == "FailedScheduling" and e["regarding"]["name"] == pod]
        return notes[-1] if notes else None

    def test_devices_are_allocated_where_they_exist_and_never_shared(self):
        for n in ("n1", "n2", "n3"):
            self.c.node(n, cpu="8", memory="32Gi")
        self.c.create(f"{RES}/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.slice_for("n1", ["a100", "a100"])
        self.slice_for("n2", ["l4"])
        self.c.start_berth("berth", config())

        # Three single-GPU claims for three GPUs on two nodes: each gets its own device.
        for i in range(3):
            self.claim(f"one-{i}")
            self.pod_with(f"one-{i}", claim=f"one-{i}")
        bound = wait_for(lambda: (lambda b: b if len(b) == 3 else None)(self.bound()), 60,
                         what="three pods with claims bound")
        self.assertNotIn("n3", bound.values(), bound)
        devices = []
        for i in range(3):
            c = self.claim_obj(f"one-{i}")
            alloc = c["status"]["allocation"]
            (result,) = alloc["devices"]["results"]
            self.assertEqual(result["driver"], DRIVER)
            self.assertEqual(result["pool"], bound[f"one-{i}"], "device of another node")
            devices.append((result["pool"], result["device"]))
            self.assertEqual([r["name"] for r in c["status"]["reservedFor"]], [f"one-{i}"])
            self.assertIn("resource.kubernetes.io/delete-protection", c["metadata"]["finalizers"])
            self.assertEqual(alloc["nodeSelector"]["nodeSelectorTerms"][0]["matchFields"][0]
                             ["values"], [bound[f"one-{i}"]])
        self.assertEqual(len(set(devices)), 3, f"a device was given twice: {devices}")

        # No GPU left: a fourth claim cannot be allocated anywhere.
        self.claim("one-3")
        self.pod_with("one-3", claim="one-3")
        note = wait_for(lambda: self.failed_note("one-3"), 30, what="FailedScheduling for one-3")
        self.assertEqual(note, "0/3 nodes are available: 3 cannot allocate all claims. "
                               "preemption: 0/3 nodes are available: "
                               "3 Preemption is not helpful for scheduling.")

        # A claim already allocated is shared: its second pod lands where the device is.
        self.pod_with("one-0-again", claim="one-0")
        node = wait_for(lambda: self.bound().get("one-0-again"), 30, what="sharing pod bound")
        self.assertEqual(node, bound["one-0"])
        reserved = [r["name"] for r in self.claim_obj("one-0")["status"]["reservedFor"]]
        self.assertEqual(sorted(reserved), ["one-0", "one-0-again"])

    def test_template_claims_wait_for_the_claim_controller(self):
        self.c.node("n1", cpu="8", memory="32Gi")
        self.c.create(f"{RES}/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.slice_for("n1", ["a100"])
        self.c.create(f"{RES}/namespaces/default/resourceclaimtemplates", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "one-gpu"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}}})
        self.c.start_berth("berth", config())
        pod = self.pod_with("templated", template="one-gpu")
        # Without the controller's claim the pod waits (PreEnqueue), and is not bound.
        time.sleep(3)
        self.assertNotIn("templated", self.bound())
        # The controller's part: the claim, owned by the pod, and the pod's status entry.
        self.c.create(f"{RES}/namespaces/default/resourceclaims", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "templated-gpu-abcde",
                         "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Pod",
                                              "name": "templated",
                                              "uid": pod["metadata"]["uid"],
                                              "controller": True}]},
            "spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}}})
        self.c.request("PATCH", "/api/v1/namespaces/default/pods/templated/status",
                       {"status": {"resourceClaimStatuses": [
                           {"name": "gpu", "resourceClaimName": "templated-gpu-abcde"}]}},
                       content_type="application/merge-patch+json")
        node = wait_for(lambda: self.bound().get("templated"), 60, what="templated pod bound")
        self.assertEqual(node, "n1")
        alloc = self.claim_obj("templated-gpu-abcde")["status"]["allocation"]
        self.assertEqual(alloc["devices"]["results"][0]["device"], "gpu-0")

    def test_binding_conditions_wait_for_the_driver(self):
        # DRADeviceBindingConditions: the device must be attached by its driver first. berth
        # writes the allocation, waits in PreBind (event BindingConditionsPending), and binds the
        # pod only once the driver reports the binding condition True in the claim's status.
        self.c.node("n1", cpu="8", memory="32Gi")
        self.c.create(f"{RES}/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.c.create(f"{RES}/resourceslices", {
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "fabric"},
            "spec": {"driver": DRIVER, "nodeName": "n1",
                     "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "bindsToNode": True,
                                  "bindingConditions": ["example.com/attached"],
                                  "bindingFailureConditions": ["example.com/failed"]}]}})
        self.c.start_berth("berth", config())
        self.claim("attach")
        self.pod_with("attach", claim="attach")

        def allocated():
            c = self.claim_obj("attach")
            return c if c.get("status", {}).get("allocation") else None
        claim = wait_for(allocated, 60, what="claim allocated")
        (result,) = claim["status"]["allocation"]["devices"]["results"]
        self.assertEqual(result["bindingConditions"], ["example.com/attached"])
        pending = wait_for(lambda: [e for e in self.c.events()
                                    if e.get("reason") == "BindingConditionsPending"], 30,
                           what="BindingConditionsPending event")
        self.assertEqual(pending[0]["note"], "waiting for binding conditions for device on node n1")
        time.sleep(2)
        self.assertNotIn("attach", self.bound(), "bound before the driver attached the device")

        # The driver's part: the device is attached.
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.c.request("PATCH", f"{RES}/namespaces/default/resourceclaims/attach/status",
                       {"status": {"devices": [{
                           "driver": DRIVER, "pool": "fabric", "device": "gpu-0",
                           "conditions": [{"type": "example.com/attached", "status": "True",
                                           "reason": "Attached", "message": "on n1",
                                           "lastTransitionTime": now}]}]}},
                       content_type="application/merge-patch+json")
        node = wait_for(lambda: self.bound().get("attach"), 30, what="pod bound after attach")
        self.assertEqual(node, "n1")

    def test_removing_a_device_taint_rule_requeues_the_pod(self):
        # A DeviceTaintRule taints the only GPU: the pod is unschedulable. Deleting the rule is
        # reported as a ResourceSlice change, so the pod is tried again at once (not after the
        # unschedulable queue's 5-minute flush) and binds.
        self.c.node("n1", cpu="8", memory="32Gi")
        self.c.create(f"{RES}/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.slice_for("n1", ["a100"])
        self.c.create(f"{RES}/devicetaintrules", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule",
            "metadata": {"name": "maintenance"},
            "spec": {"deviceSelector": {"driver": DRIVER},
                     "taint": {"key": "example.com/maintenance", "effect": "NoSchedule"}}})
        self.c.start_berth("berth", config())
        self.claim("tainted")
        self.pod_with("tainted", claim="tainted")
        note = wait_for(lambda: self.failed_note("tainted"), 30, what="FailedScheduling")
        self.assertIn("cannot allocate all claims", note)
        self.c.request("DELETE", f"{RES}/devicetaintrules/maintenance")
        node = wait_for(lambda: self.bound().get("tainted"), 30, what="pod bound after untaint")
        self.assertEqual(node, "n1")

    def test_extended_resource_gets_a_generated_claim(self):
        # n1 has two GPUs through DRA; n2 advertises the resource itself (device plugin).
        self.c.node("n1", cpu="8", memory="32Gi")
        self.c.node("n2", cpu="8", memory="32Gi")
        self.c.request("PATCH", "/api/v1/nodes/n2/status",
                       {"status": {"capacity": {"example.com/gpu": "1"},
                                   "allocatable": {"example.com/gpu": "1"}}},
                       content_type="application/merge-patch+json")
        self.c.create(f"{RES}/deviceclasses", {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"extendedResourceName": "example.com/gpu",
                     "selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
        self.slice_for("n1", ["a100", "a100"])
        self.c.start_berth("berth", config())
        pod = self.c.create("/api/v1/namespaces/default/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "two-gpus"},
            "spec": {"schedulerName": "berth-scheduler",
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"example.com/gpu": "2"},
                                                   "limits": {"example.com/gpu": "2"}}}]}})
        # Only n1 has two: through DRA.
        node = wait_for(lambda: self.bound().get("two-gpus"), 60, what="extended pod bound")
        self.assertEqual(node, "n1")
        status = wait_for(lambda: self.c.get("/api/v1/namespaces/default/pods/two-gpus")
                          ["status"].get("extendedResourceClaimStatus"), 30,
                          what="extendedResourceClaimStatus")
        self.assertEqual(status["requestMappings"],
                         [{"containerName": "c", "resourceName": "example.com/gpu",
                           "requestName": "container-0-request-0"}])
        name = status["resourceClaimName"]
        self.assertTrue(name.startswith("two-gpus-extended-resources-"), name)
        claim = self.claim_obj(name)
        meta = claim["metadata"]
        self.assertEqual(meta["annotations"], {"resource.kubernetes.io/extended-resource-claim":
                                               "true"})
        (owner,) = meta["ownerReferences"]
        self.assertEqual((owner["kind"], owner["name"], owner["uid"], owner.get("controller")),
                         ("Pod", "two-gpus", pod["metadata"]["uid"], True))
        self.assertIn("resource.kubernetes.io/delete-protection", meta["finalizers"])
        self.assertEqual(claim["spec"]["devices"]["requests"],
                         [{"name": "container-0-request-0",
                           "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount",
                                       "count": 2}}])
        results = claim["status"]["allocation"]["devices"]["results"]
        self.assertEqual(sorted(r["device"] for r in results), ["gpu-0", "gpu-1"])
        self.assertEqual({r["pool"] for r in results}, {"n1"})
        self.assertEqual([r["name"] for r in claim["status"]["reservedFor"]], ["two-gpus"])

        # One more GPU: n1's are taken, n2's device plugin serves it (no claim made).
        self.c.create("/api/v1/namespaces/default/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "one-gpu"},
            "spec": {"schedulerName": "berth-scheduler",
                     "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"example.com/gpu": "1"},
                                                   "limits": {"example.com/gpu": "1"}}}]}})
        node = wait_for(lambda: self.bound().get("one-gpu"), 60, what="device plugin pod bound")
        self.assertEqual(node, "n2")
        one = self.c.get("/api/v1/namespaces/default/pods/one-gpu")
        self.assertNotIn("extendedResourceClaimStatus", one["status"])


if __name__ == "__main__":
    unittest.main()
