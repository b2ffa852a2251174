import { crdOwnerMarks } from "../../lib/doctor/checks";
import { crdOwners } from "../../lib/doctor/checks/crdOwners";
import { helmUninstall } from "../../lib/doctor/checks/helmUninstall";
import { codes, crd, gkeOwned, helmOwned, helmRecord, obj, runCheck } from "./fixtures";

/**
 * CRD owners and what an uninstall deletes: the outage the platform exists to prevent first, Linkerd's
 * chart owning GKE's HTTPRoute CRD, found on a live cluster.
 */

const gateway = "gateway.networking.k8s.io";
const gkeGateways = [
  crd(gateway, "gateways", "Gateway", gkeOwned),
  crd(gateway, "gatewayclasses", "GatewayClass", gkeOwned),
];
const linkerdHttpRoutes = crd(gateway, "httproutes", "HTTPRoute", {
  labels: { ...helmOwned("linkerd-crds", "linkerd").labels },
  annotations: {
    ...helmOwned("linkerd-crds", "linkerd").annotations,
    "gateway.networking.k8s.io/bundle-version": "v1.1.1",
    "gateway.networking.k8s.io/channel": "experimental",
  },
});
const linkerdCrds = helmRecord({
  name: "linkerd-crds",
  namespace: "linkerd",
  chart: "linkerd-crds",
  version: "2026.8.3",
  manifest: [
    "---\n# Source: linkerd-crds/templates/gateway.networking.k8s.io_httproutes.yaml",
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: httproutes.gateway.networking.k8s.io\n  annotations:\n    helm.sh/resource-policy: keep",
    "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: servers.policy.linkerd.io",
    "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings",
  ].join("\n"),
});

test("each owner's marks: GKE's, a Helm release's, Pulumi's field manager, or whoever wrote it", () => {
  expect(crdOwnerMarks(gkeGateways[0])).toEqual([{ kind: "gke", label: "GKE" }]);
  expect(crdOwnerMarks(linkerdHttpRoutes)).toEqual([
    {
      kind: "helm",
      release: "linkerd-crds",
      namespace: "linkerd",
      label: "Helm release linkerd/linkerd-crds",
    },
  ]);
  const managed = (manager: string, subresource?: string) => ({
    manager,
    operation: "Apply",
    ...(subresource ? { subresource } : {}),
  });
  expect(
    crdOwnerMarks(
      crd("monitoring.coreos.com", "podmonitors", "PodMonitor", {
        managedFields: [managed("pulumi-kubernetes-ab12cd34"), managed("kube-apiserver", "status")],
      }),
    ),
  ).toEqual([{ kind: "pulumi", label: "Pulumi" }]);
  expect(
    crdOwnerMarks(
      crd("monitoring.coreos.com", "podmonitors", "PodMonitor", {
        managedFields: [managed("kubectl-client-side-apply"), managed("kube-apiserver", "status")],
      }),
    ),
  ).toEqual([{ kind: "other", label: "kubectl-client-side-apply (no owner's marks)" }]);
});

test("a Gateway API CRD a Helm release owns while GKE manages the family is an error, with the way out", async () => {
  const { findings } = await runCheck(crdOwners, [...gkeGateways, linkerdHttpRoutes, linkerdCrds]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "gateway-api-crd-owned-by-helm",
      objects: [
        "CustomResourceDefinition httproutes.gateway.networking.k8s.io",
        "Helm release linkerd/linkerd-crds",
      ],
      message:
        "CustomResourceDefinition httproutes.gateway.networking.k8s.io is owned by Helm release linkerd/linkerd-crds (meta.helm.sh/release-name, chart linkerd-crds 2026.8.3), while GKE manages the Gateway API CRDs on this cluster: gateways.gateway.networking.k8s.io and gatewayclasses.gateway.networking.k8s.io carry GKE's marks (components.gke.io/component-name: gateway-api-crds or the addonmanager.kubernetes.io/mode label). " +
        "Uninstalling the release, or upgrading it with its Gateway API CRDs off, deletes httproutes.gateway.networking.k8s.io and every HTTPRoute in the cluster; until then Helm and GKE overwrite each other's version. " +
        "This copy is the experimental channel, bundle v1.1.1, which GKE's standard channel refuses.",
      fix:
        "keep the CRD and its objects, then take it from the release: kubectl annotate crd httproutes.gateway.networking.k8s.io helm.sh/resource-policy=keep --overwrite; " +
        "upgrade linkerd-crds with its Gateway API CRDs off (installGatewayAPI=false, enableHttpRoutes=false, enableTlsRoutes=false, enableTcpRoutes=false, as the platform sets them); then remove Helm's marks: " +
        "kubectl annotate crd httproutes.gateway.networking.k8s.io meta.helm.sh/release-name- meta.helm.sh/release-namespace- && kubectl label crd httproutes.gateway.networking.k8s.io app.kubernetes.io/managed-by-. GKE then manages it alone",
      evidence:
        "GKE owns the Gateway API CRDs (gke-gateway.md 2.3; docs/safety.md single-crd-owner); Helm deletes what a release's manifest holds without the keep policy (helm/helm v3.19.4 pkg/action/uninstall.go, pkg/kube/client.go)",
    },
  ]);
});

test("one finding per release, naming each of its Gateway API CRDs, what an uninstall deletes and what it keeps", async () => {
  const kept = crd(gateway, "grpcroutes", "GRPCRoute", {
    labels: { ...helmOwned("linkerd-crds", "linkerd").labels },
    annotations: { ...helmOwned("linkerd-crds", "linkerd").annotations, "helm.sh/resource-policy": "keep" },
  });
  const { findings } = await runCheck(crdOwners, [...gkeGateways, linkerdHttpRoutes, kept]);
  expect(findings).toHaveLength(1);
  expect(findings[0].objects).toEqual([
    "CustomResourceDefinition httproutes.gateway.networking.k8s.io",
    "CustomResourceDefinition grpcroutes.gateway.networking.k8s.io",
    "Helm release linkerd/linkerd-crds",
  ]);
  expect(findings[0].message).toBe(
    "The CustomResourceDefinitions httproutes.gateway.networking.k8s.io and grpcroutes.gateway.networking.k8s.io are owned by Helm release linkerd/linkerd-crds (meta.helm.sh/release-name), while GKE manages the Gateway API CRDs on this cluster: gateways.gateway.networking.k8s.io and gatewayclasses.gateway.networking.k8s.io carry GKE's marks (components.gke.io/component-name: gateway-api-crds or the addonmanager.kubernetes.io/mode label). " +
      "Uninstalling the release, or upgrading it with its Gateway API CRDs off, deletes httproutes.gateway.networking.k8s.io and every HTTPRoute in the cluster; until then Helm and GKE overwrite each other's version. httproutes.gateway.networking.k8s.io is the experimental channel, bundle v1.1.1, which GKE's standard channel refuses.",
  );
  expect(findings[0].fix).toMatch(
    /^keep the CRDs and their objects, then take them from the release: kubectl annotate crd httproutes\.gateway\.networking\.k8s\.io grpcroutes\.gateway\.networking\.k8s\.io helm\.sh\/resource-policy=keep --overwrite; upgrade linkerd-crds with its Gateway API CRDs off; /,
  );
});

test("GKE's GatewayClasses alone say GKE manages the Gateway API; a CRD applied by anyone else is a second owner", async () => {
  const classes = obj(
    "gateway.networking.k8s.io/v1",
    "GatewayClass",
    "gke-l7-global-external-managed",
    undefined,
    {
      spec: { controllerName: "networking.gke.io/gateway" },
    },
  );
  const applied = crd(gateway, "httproutes", "HTTPRoute", {
    managedFields: [{ manager: "kubectl-client-side-apply", operation: "Update" }],
  });
  const { findings } = await runCheck(crdOwners, [
    crd(gateway, "gatewayclasses", "GatewayClass"),
    applied,
    classes,
  ]);
  expect(codes(findings)).toEqual([
    "error gateway-api-crd-second-owner",
    "error gateway-api-crd-second-owner",
  ]);
  expect(findings[0].message).toContain(
    "CustomResourceDefinition gatewayclasses.gateway.networking.k8s.io was written by nobody's marks, not GKE,",
  );
  expect(findings[1].message).toBe(
    "CustomResourceDefinition httproutes.gateway.networking.k8s.io was written by kubectl-client-side-apply (no owner's marks), not GKE, while GKE manages the Gateway API CRDs on this cluster: GatewayClass gke-l7-global-external-managed is GKE's (controller networking.gke.io/gateway). Two owners overwrite each other's version at every upgrade, and a rollback of either takes routes' fields away.",
  );
});

test("GKE's own CRDs, and a family with one owner, are fine; two owners of one family are an error", async () => {
  expect((await runCheck(crdOwners, gkeGateways)).findings).toEqual([]);
  const linkerd = ["servers", "authorizationpolicies"].map((p) =>
    crd("policy.linkerd.io", p, p, helmOwned("linkerd-crds", "linkerd")),
  );
  expect((await runCheck(crdOwners, linkerd)).findings).toEqual([]);
  const stray = crd("policy.linkerd.io", "httproutes", "HTTPRoute", helmOwned("linkerd2", "default"));
  const { findings } = await runCheck(crdOwners, [...linkerd, stray]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "two-owners",
      objects: [
        "CustomResourceDefinition servers.policy.linkerd.io",
        "CustomResourceDefinition authorizationpolicies.policy.linkerd.io",
        "CustomResourceDefinition httproutes.policy.linkerd.io",
      ],
      message:
        "The Linkerd CRDs (linkerd.io, policy.linkerd.io, workload.linkerd.io) have 2 owners: Helm release linkerd/linkerd-crds (servers.policy.linkerd.io and authorizationpolicies.policy.linkerd.io); Helm release default/linkerd2 (httproutes.policy.linkerd.io). Each owner upgrades or deletes its part on its own schedule, and a family's CRDs must move together.",
      fix: "choose one owner for the family (lib/crds: the chart or CRD chart the platform assigns it), and hand the others' CRDs to it: annotate them helm.sh/resource-policy=keep before removing them from their current owner",
      evidence: "docs/safety.md single-crd-owner",
    },
  ]);
});

test("without permission to list CRDs the check could not check, naming the permission", async () => {
  await expect(
    runCheck(crdOwners, gkeGateways, { forbidden: ["customresourcedefinitions.apiextensions.k8s.io"] }),
  ).rejects.toThrow("no permission to list customresourcedefinitions.apiextensions.k8s.io");
});

test("an uninstall deletes the CRDs its manifest holds without keep, whatever the live CRD says; every release's uninstall is noted", async () => {
  const kept = crd("policy.linkerd.io", "servers", "Server", {
    annotations: { "helm.sh/resource-policy": "keep" },
  });
  const { findings, notes } = await runCheck(helmUninstall, [linkerdCrds, kept]);
  expect(findings).toEqual([
    {
      severity: "warning",
      code: "uninstall-deletes-crds",
      objects: ["Helm release linkerd/linkerd-crds", "CustomResourceDefinition servers.policy.linkerd.io"],
      message:
        "helm uninstall linkerd-crds --namespace linkerd deletes 1 CustomResourceDefinition its manifest holds without helm.sh/resource-policy: keep (servers.policy.linkerd.io), and with each every object of its kind in the cluster. servers.policy.linkerd.io is annotated keep on the cluster, which spares it from an upgrade that drops it, not from helm uninstall: it reads the release's stored manifest.",
      fix: "never uninstall linkerd-crds to remove what it serves; to make it safe, annotate the live CRDs (kubectl annotate crd servers.policy.linkerd.io helm.sh/resource-policy=keep) and upgrade the release either with the chart's keep switch on (cert-manager and trust-manager: crds.keep=true) or with its CRDs off, so its manifest no longer deletes them",
      evidence:
        "helm/helm v3.19.4 pkg/action/uninstall.go (the stored manifest decides), pkg/kube/client.go (an upgrade reads the live keep annotation)",
    },
  ]);
  expect(notes).toEqual([
    {
      objects: ["Helm release linkerd/linkerd-crds"],
      message:
        "helm uninstall linkerd-crds --namespace linkerd (chart linkerd-crds 2026.8.3, revision 1, deployed) deletes 2 objects (1 ConfigMap, 1 CustomResourceDefinition) and keeps 1 (helm.sh/resource-policy: keep): CustomResourceDefinition httproutes.gateway.networking.k8s.io",
    },
  ]);
});

test("a Gateway API CRD an uninstall deletes is an error; without permission to read Helm's records it says so", async () => {
  const bare = helmRecord({
    name: "traefik",
    namespace: "traefik",
    chart: "traefik",
    version: "33.0.0",
    manifest:
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: httproutes.gateway.networking.k8s.io\n",
  });
  expect(codes((await runCheck(helmUninstall, [bare])).findings)).toEqual(["error uninstall-deletes-crds"]);
  expect(await runCheck(helmUninstall, [bare], { forbidden: ["secrets"] })).toEqual({
    findings: [],
    notes: [],
    unchecked: [
      "what each release's uninstall deletes: no permission to list secrets (Helm's release records)",
    ],
  });
});

test("the newest deployed record of each release is read; one that does not decode is said, not fatal", async () => {
  const v1 = helmRecord({
    name: "app",
    namespace: "a",
    chart: "c",
    version: "1.0.0",
    revision: 1,
    status: "superseded",
  });
  const v2 = helmRecord({ name: "app", namespace: "a", chart: "c", version: "2.0.0", revision: 2 });
  const v3 = helmRecord({
    name: "app",
    namespace: "a",
    chart: "c",
    version: "3.0.0",
    revision: 3,
    status: "failed",
  });
  const broken = {
    ...helmRecord({ name: "bad", namespace: "a", chart: "c", version: "1" }),
    data: { release: "bm90IGd6aXA=" },
  };
  const { notes, unchecked } = await runCheck(helmUninstall, [v1, v2, v3, broken]);
  expect(notes.map((n) => n.message)).toEqual([
    "helm uninstall app --namespace a (chart c 2.0.0, revision 2, deployed) deletes 0 objects",
  ]);
  expect(unchecked).toEqual([
    "Secret a/sh.helm.release.v1.bad.v1: could not read the Helm release: its release key is not a release as Helm 3 writes it (gzipped JSON, base64)",
  ]);
});
