import { driftCheck, fieldDrift, type StackRender } from "../../lib/doctor/checks";
import { helmRecord, namespace, obj, runCheck } from "./fixtures";

/** The cluster against a stack's render: missing, changed in the fields the render sets, extra, and releases. */

const pulumi = { managedFields: [{ manager: "pulumi-kubernetes-5f0c2e9a", operation: "Apply" }] };

const render: StackRender = {
  label: "stacks (dev)",
  objects: [
    namespace("shop", { labels: { "pod-security.kubernetes.io/enforce": "restricted" } }),
    obj("v1", "Service", "web", "shop", {
      spec: { type: "ClusterIP", ports: [{ name: "http", port: 8080, targetPort: 8080 }] },
    }),
    obj("v1", "ConfigMap", "settings", "shop", { data: { mode: "fast" } }),
    obj("v1", "Secret", "creds", "shop", { data: { password: "[secret]" } }),
    obj("apps/v1", "Deployment", "web", "shop", {
      spec: {
        replicas: 2,
        template: {
          spec: {
            containers: [
              { name: "app", image: "web:1.4.2", resources: { requests: { cpu: "100m", memory: "128Mi" } } },
            ],
          },
        },
      },
    }),
    obj("v1", "ConfigMap", "<known after deploy, random suffix>", "shop", {}),
  ],
  releases: [
    { name: "cert-manager", namespace: "cert-manager", chart: "cert-manager", version: "v1.21.2" },
    { name: "linkerd-crds", namespace: "linkerd", chart: "linkerd-crds", version: "2026.8.3" },
  ],
};

const live = [
  namespace("shop", { labels: { "pod-security.kubernetes.io/enforce": "restricted" } }),
  obj("v1", "Service", "web", "shop", {
    spec: {
      type: "ClusterIP",
      clusterIP: "10.96.0.10",
      ports: [{ name: "http", port: 8080, targetPort: 9090, protocol: "TCP" }],
    },
  }),
  obj("v1", "Secret", "creds", "shop", { data: { password: "c2VjcmV0LXZhbHVl" } }),
  obj(
    "apps/v1",
    "Deployment",
    "web",
    "shop",
    {
      spec: {
        replicas: 2,
        template: {
          spec: {
            containers: [
              {
                name: "app",
                image: "web:1.4.2",
                resources: { requests: { cpu: "0.1", memory: "134217728" } },
              },
            ],
          },
        },
      },
    },
    pulumi,
  ),
  obj("v1", "ConfigMap", "left-behind", "shop", { data: {} }, pulumi),
  obj("v1", "ConfigMap", "kube-root-ca.crt", "shop", { data: {} }),
  helmRecord({
    name: "cert-manager",
    namespace: "cert-manager",
    chart: "cert-manager",
    version: "v1.21.1",
    revision: 3,
  }),
];

test("missing, changed (only what the render sets, Secrets' data never), extra, and releases", async () => {
  const { findings } = await runCheck(driftCheck(render), live);
  expect(findings).toEqual([
    {
      severity: "warning",
      code: "changed",
      objects: ["Service shop/web"],
      message:
        "Service shop/web differs from stacks (dev)'s render in 1 field the render sets: spec.ports[http].targetPort is 9090, the render has 8080.",
      fix: "pulumi preview --diff shows the same change; pulumi up puts the render's values back, or change the program if the cluster's are right (pulumi refresh records them)",
    },
    {
      severity: "error",
      code: "missing",
      objects: ["ConfigMap shop/settings"],
      message:
        "ConfigMap shop/settings is in stacks (dev)'s render and not in the cluster: pulumi up would create it, or someone deleted it.",
      fix: "pulumi up the stack (after a pulumi preview), or find who deleted it",
    },
    {
      severity: "warning",
      code: "extra",
      objects: ["ConfigMap shop/left-behind"],
      message:
        "ConfigMap shop/left-behind was applied by Pulumi (field manager pulumi-kubernetes-5f0c2e9a) in namespace shop, which stacks (dev)'s render creates, and the render does not have it: left from an earlier version of the stack, or applied by another program.",
      fix: "if no stack owns it any more, delete it (kubectl delete configmap left-behind --namespace shop); if another stack does, leave it",
    },
    {
      severity: "warning",
      code: "release-version",
      objects: ["Helm release cert-manager/cert-manager"],
      message:
        "Helm release cert-manager/cert-manager runs cert-manager v1.21.1 (revision 3, deployed); stacks (dev)'s render pins cert-manager v1.21.2.",
      fix: "pulumi up the stack to move it to the pin (docs/upgrades.md), or find who upgraded it by hand (helm history)",
    },
    {
      severity: "error",
      code: "release-missing",
      objects: ["Helm release linkerd/linkerd-crds"],
      message:
        "Helm release linkerd/linkerd-crds (linkerd-crds 2026.8.3) is in stacks (dev)'s render and not installed in the cluster.",
      fix: "pulumi up the stack (after a pulumi preview)",
    },
  ]);
  expect(JSON.stringify(findings)).not.toContain("c2VjcmV0LXZhbHVl");
});

test("a kind the cluster does not serve makes its objects missing, saying why", async () => {
  const gateway: StackRender = {
    label: "stacks (dev)",
    objects: [obj("gateway.networking.k8s.io/v1", "HTTPRoute", "web", "shop", { spec: {} })],
    releases: [],
  };
  const { findings } = await runCheck(driftCheck(gateway), []);
  expect(findings.map((f) => f.message)).toEqual([
    "HTTPRoute shop/web is in stacks (dev)'s render and not in the cluster (the cluster does not serve gateway.networking.k8s.io/v1 HTTPRoute: its CRD is not installed): pulumi up would create it, or someone deleted it.",
  ]);
});

test("field drift: named lists by name, quantities under resources by value, unknowable values skipped", () => {
  expect(
    fieldDrift(
      { a: [{ name: "x", v: 1 }] },
      {
        a: [
          { name: "y", v: 1 },
          { name: "x", v: 2 },
        ],
      },
    ),
  ).toEqual([{ path: "a[x].v", rendered: "1", live: "2" }]);
  expect(
    fieldDrift({ resources: { limits: { memory: "1Gi" } } }, { resources: { limits: { memory: "1024Mi" } } }),
  ).toEqual([]);
  expect(fieldDrift({ timeout: "1m" }, { timeout: "60s" })).toEqual([
    { path: "timeout", rendered: '"1m"', live: '"60s"' },
  ]);
  expect(
    fieldDrift({ ip: "<known after deploy, the address>", list: [1, 2] }, { ip: "10.0.0.1", list: [1] }),
  ).toEqual([{ path: "list", rendered: "[1,2]", live: "[1]" }]);
});
