import { meshAdmissions } from "../../meshes/models";
import type { ClusterFinding } from "../findings";
import { namespaceMap, type ObjectSet } from "../objectSet";
import {
  nameOf,
  podTemplateOf,
  selects,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "../objects";

/** `references-resolve`: every Service a route sends to and every mesh object guarding a port (Linkerd's Server) selects a pod; every issuer, ServiceAccount, Secret and ConfigMap a pod or Certificate needs exists. */
export function referencesResolve(set: ObjectSet): ClusterFinding[] {
  const findings: ClusterFinding[] = [];
  const find = (kind: string, namespace: string | undefined, name: string) =>
    set.objects.find(
      (o) =>
        o.kind === kind &&
        o.metadata.name === name &&
        (namespace === undefined || o.metadata.namespace === namespace),
    );
  const push = (o: KubeObject, message: string) =>
    findings.push({ invariant: "references-resolve", object: nameOf(o), message });
  // Services that routes send to, and mesh objects guarding a port: each selects a pod serving the port.
  for (const o of set.objects) {
    for (const target of serviceTargets(o)) {
      const svc = find("Service", target.namespace, target.name);
      if (!svc) {
        push(
          o,
          `sends to Service ${target.namespace}/${target.name}, which nothing creates: create it or fix the name`,
        );
      } else if (!servicePods(set, svc).length) {
        push(
          o,
          `sends to Service ${target.namespace}/${target.name}, which selects no pod: requests would find no endpoint`,
        );
      }
    }
    // Mesh objects that guard a port of the pods they select (Linkerd's Servers).
    for (const served of meshAdmissions.flatMap((m) => m.servedPort(o, set.releaseOf.get(o)?.chart) ?? [])) {
      const pods = set.pods.filter(
        (p) => p.namespace === o.metadata.namespace && selects(served.podSelector, p.labels),
      );
      if (!pods.some((p) => exposes(p, served.port))) {
        push(
          o,
          `selects no pod serving port ${JSON.stringify(served.port)}: its policy protects nothing; match the pods' labels and port`,
        );
      }
    }
    if (o.kind === "Certificate" && o.apiVersion.startsWith("cert-manager.io/")) {
      const ref = (o.spec as { issuerRef?: { name: string; kind?: string } }).issuerRef;
      if (
        ref &&
        !find(ref.kind ?? "Issuer", ref.kind === "ClusterIssuer" ? undefined : o.metadata.namespace, ref.name)
      ) {
        push(
          o,
          `names ${ref.kind ?? "Issuer"} ${ref.name}, which nothing creates: the certificate is never issued`,
        );
      }
    }
  }
  // What pods mount: their ServiceAccount, and Secrets and ConfigMaps that are not optional.
  const written = writtenByControllers(set);
  for (const pod of set.pods) {
    if (
      pod.serviceAccountName !== "default" &&
      !find("ServiceAccount", pod.namespace, pod.serviceAccountName)
    ) {
      push(
        pod.owner,
        `runs as ServiceAccount ${pod.serviceAccountName}, which nothing creates: its pods are never admitted`,
      );
    }
    for (const v of pod.volumes) {
      const secret = v.secret as { secretName?: string; optional?: boolean } | undefined;
      const cm = v.configMap as { name?: string; optional?: boolean } | undefined;
      const need =
        secret?.secretName && !secret.optional
          ? ["Secret", secret.secretName]
          : cm?.name && !cm.optional
            ? ["ConfigMap", cm.name]
            : undefined;
      if (!need) continue;
      const [kind, name] = need;
      if (find(kind, pod.namespace, name) || written.has(`${kind} ${pod.namespace}/${name}`)) continue;
      push(
        pod.owner,
        `mounts ${kind} ${name}, which nothing in the set creates or writes: its pods never start`,
      );
    }
  }
  return findings;
}

/** Whether a container of the pod declares the port, by name or number. */
function exposes(pod: PodTemplate, port: string | number | undefined): boolean {
  if (port === undefined) return true;
  return [...pod.containers, ...pod.initContainers].some((c) =>
    (c.ports ?? []).some((p) => p.name === port || p.containerPort === port),
  );
}

function servicePods(set: ObjectSet, svc: KubeObject): PodTemplate[] {
  const selector = (svc.spec as { selector?: Record<string, string> } | undefined)?.selector;
  if (!selector || Object.keys(selector).length === 0) return [];
  return set.pods.filter(
    (p) => p.namespace === svc.metadata.namespace && selects({ matchLabels: selector }, p.labels),
  );
}

/** The Services a route, an Ingress or an IngressRoute sends to, with their namespace. */
function serviceTargets(o: KubeObject): { namespace: string; name: string }[] {
  const ns = o.metadata.namespace ?? "default";
  if (o.kind === "HTTPRoute") {
    const rules =
      (
        o.spec as {
          rules?: { backendRefs?: { name: string; kind?: string; group?: string; namespace?: string }[] }[];
        }
      ).rules ?? [];
    return rules.flatMap((r) =>
      (r.backendRefs ?? [])
        .filter((b) => (b.kind ?? "Service") === "Service" && (b.group ?? "") === "")
        .map((b) => ({ namespace: b.namespace ?? ns, name: b.name })),
    );
  }
  if (o.kind === "Ingress" && o.apiVersion === "networking.k8s.io/v1") {
    const spec = o.spec as {
      rules?: { http?: { paths?: { backend?: { service?: { name: string } } }[] } }[];
    };
    return (spec.rules ?? []).flatMap((r) =>
      (r.http?.paths ?? []).flatMap((p) =>
        p.backend?.service ? [{ namespace: ns, name: p.backend.service.name }] : [],
      ),
    );
  }
  if (o.kind === "IngressRoute") {
    const routes =
      (o.spec as { routes?: { services?: { name: string; kind?: string; namespace?: string }[] }[] })
        .routes ?? [];
    return routes.flatMap((r) =>
      (r.services ?? [])
        .filter((s) => (s.kind ?? "Service") === "Service")
        .map((s) => ({ namespace: s.namespace ?? ns, name: s.name })),
    );
  }
  return [];
}

/**
 * Secrets and ConfigMaps that controllers in the set write, so pods may mount them though no template
 * creates them: each with the controller that writes it.
 */
function writtenByControllers(set: ObjectSet): Set<string> {
  const out = new Set<string>();
  const namespaces = [...namespaceMap(set.objects).keys(), ...new Set(set.pods.map((p) => p.namespace))];
  const installed = new Set(set.releases.map((r) => r.chart));
  for (const ns of namespaces) {
    // Kubernetes' root CA publisher writes it into every namespace.
    out.add(`ConfigMap ${ns}/kube-root-ca.crt`);
    for (const mesh of meshAdmissions)
      for (const written of mesh.writtenInto(ns, installed)) out.add(written);
  }
  for (const o of set.objects) {
    // kube-webhook-certgen Jobs write the Secret named by --secret-name (kube-prometheus-stack
    // templates/prometheus-operator/admission-webhooks/job-patch/job-createSecret.yaml).
    const job = o.kind === "Job" ? podTemplateOf(o) : undefined;
    for (const c of job?.containers ?? []) {
      const args = (c as { args?: string[] }).args ?? [];
      const name = args.find((a) => a.startsWith("--secret-name="))?.slice("--secret-name=".length);
      const ns =
        args.find((a) => a.startsWith("--namespace="))?.slice("--namespace=".length) ?? o.metadata.namespace;
      if (name) out.add(`Secret ${ns}/${name}`);
    }
    // cert-manager writes each Certificate's secretName.
    if (o.kind === "Certificate" && o.apiVersion.startsWith("cert-manager.io/")) {
      out.add(`Secret ${o.metadata.namespace}/${(o.spec as { secretName: string }).secretName}`);
    }
    // trust-manager writes each Bundle's target into the namespaces its selector matches.
    if (o.kind === "Bundle" && o.apiVersion.startsWith("trust.cert-manager.io/")) {
      const target = (
        o.spec as { target?: { configMap?: unknown; secret?: unknown; namespaceSelector?: LabelSelector } }
      ).target;
      for (const ns of namespaceMap(set.objects).values()) {
        if (
          !selects(target?.namespaceSelector, {
            "kubernetes.io/metadata.name": ns.metadata.name,
            ...ns.metadata.labels,
          })
        )
          continue;
        if (target?.configMap) out.add(`ConfigMap ${ns.metadata.name}/${o.metadata.name}`);
        if (target?.secret) out.add(`Secret ${ns.metadata.name}/${o.metadata.name}`);
      }
    }
  }
  return out;
}
