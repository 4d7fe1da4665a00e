"""The secure port's delegated authentication and authorization against a real kube-apiserver
(test/cluster: RBAC, the admin token in system:masters, ServiceAccount tokens from the
TokenRequest API), as kube-scheduler's port 10259 behaves.

Run: python3 -m unittest -v test_auth  (from this folder), or through ctest.
"""
import json
import os
import ssl
import subprocess
import unittest
import urllib.error
import urllib.request

import kube
from kube import config, scrape, wait_for

FORBIDDEN_ANONYMOUS = {
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": 'forbidden: User "system:anonymous" cannot get path "/metrics"',
    "reason": "Forbidden", "details": {}, "code": 403}
UNAUTHORIZED = {
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "Unauthorized", "reason": "Unauthorized", "code": 401}


class SecurePortAuthTest(kube.ClusterTestCase):
    def grant_metrics(self, sa, ns="default"):
        self.c.create("/apis/rbac.authorization.k8s.io/v1/clusterroles",
                      {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                       "metadata": {"name": "metrics-reader"},
                       "rules": [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}]})
        self.c.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
                      {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                       "metadata": {"name": "metrics-reader"},
                       "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                                   "kind": "ClusterRole", "name": "metrics-reader"},
                       "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": ns}]})

    def test_tokens_rbac_and_fail_closed(self):
        berth = self.c.start_berth("berth", config(leader_elect=False))
        port = self.c.https_port(berth)
        # Health checks answer anyone, as upstream's default always-allow paths.
        wait_for(lambda: scrape(port, "/healthz", token=None) == (200, "ok"), 30,
                 what="anonymous /healthz")
        self.assertEqual(scrape(port, "/livez", token=None), (200, "ok"))
        # Anonymous /metrics: the delegating authenticator allows anonymous, RBAC refuses it.
        code, body = scrape(port, "/metrics", token=None)
        self.assertEqual(code, 403, body)
        self.assertEqual(json.loads(body), FORBIDDEN_ANONYMOUS)
        # A token the API server does not know: 401, on any path.
        for path in ("/metrics", "/healthz"):
            code, body = scrape(port, path, token="not-a-token")
            self.assertEqual(code, 401, path)
            self.assertEqual(json.loads(body), UNAUTHORIZED)
        # The admin (system:masters) needs no SubjectAccessReview.
        code, body = scrape(port, "/configz")
        self.assertEqual(code, 200, body)
        self.assertIn("berth-scheduler", body)

        # A ServiceAccount without the nonResourceURL permission: 403 naming it.
        token = self.c.service_account_token("prom")
        code, body = scrape(port, "/metrics", token=token)
        self.assertEqual(code, 403, body)
        self.assertEqual(json.loads(body)["message"],
                         'forbidden: User "system:serviceaccount:default:prom" cannot get path '
                         '"/metrics"')
        # Granted get on /metrics: 200 once the cached denial (10 s) expires.
        self.grant_metrics("prom")
        code, text = wait_for(lambda: (lambda r: r if r[0] == 200 else None)(
            scrape(port, "/metrics", token=token)), 30, what="/metrics allowed")
        self.assertIn("scheduler_pending_pods", text)
        code, body = scrape(port, "/configz", token=token)
        self.assertEqual(code, 403, body)
        self.assertIn('cannot get path "/configz"', json.loads(body)["message"])

        # Fail closed: with the API server down, a token berth has not seen is refused, and an
        # anonymous request that needs a review is an error, never allowed.
        fresh = self.c.service_account_token("prom")
        self.c.stop_apiserver()
        code, body = scrape(port, "/metrics", token=fresh)
        self.assertEqual(code, 401, body)
        code, body = scrape(port, "/configz", token=None)
        self.assertEqual(code, 500, body)
        self.assertTrue(body.startswith('Internal Server Error: "/configz": '), body)
        # The health checks still answer.
        self.assertEqual(scrape(port, "/livez", token=None)[0], 200)

    def test_client_certificates(self):
        certs = os.path.join(self.c.dir, "client-certs")
        os.makedirs(certs)

        def openssl(*args):
            subprocess.run(["openssl", *args], cwd=certs, check=True, capture_output=True)

        try:
            openssl("version")
        except FileNotFoundError:
            self.fail("this test needs the openssl command: apt-get install openssl")
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=test-client-ca")
        with open(os.path.join(certs, "ext"), "w") as f:
            f.write("extendedKeyUsage=clientAuth\n")
        for name, subject in (("admin", "/O=system:masters/CN=cert-admin"),
                              ("nobody", "/CN=cert-nobody")):
            openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject)
            openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                    "-CAcreateserial", "-out", f"{name}.crt", "-days", "1", "-extfile", "ext")
        # A certificate from another CA.
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "rogue.key", "-out", "rogue.crt", "-days", "1",
                "-subj", "/O=system:masters/CN=rogue")
        berth = self.c.start_berth("berth", config(leader_elect=False),
                                   ["--client-ca-file", os.path.join(certs, "ca.crt")])
        port = self.c.https_port(berth)

        def get(path, name):
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.load_cert_chain(os.path.join(certs, f"{name}.crt"),
                                os.path.join(certs, f"{name}.key"))
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}{path}", context=ctx,
                                            timeout=10) as r:
                    return r.status, r.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        wait_for(lambda: scrape(port, "/healthz", token=None)[0] == 200, 30, what="/healthz")
        code, body = get("/configz", "admin")
        self.assertEqual(code, 200, body)
        code, body = get("/metrics", "nobody")
        self.assertEqual(code, 403, body)
        self.assertEqual(json.loads(body)["message"],
                         'forbidden: User "cert-nobody" cannot get path "/metrics"')
        code, body = get("/metrics", "rogue")
        self.assertEqual(code, 401, body)
        # No certificate at all is still anonymous.
        self.assertEqual(scrape(port, "/metrics", token=None)[0], 403)


if __name__ == "__main__":
    unittest.main()
