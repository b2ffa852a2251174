import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { CliIo } from "../../lib/render/commandLine";
import { UsageError } from "../../lib/render/commandLine";
import {
  checkNames,
  doctor,
  doctorClusterRole,
  doctorCommand,
  findKubectl,
  objectSource,
  rbacYaml,
  reportText,
  resources,
} from "../../lib/doctor";
import { crd, gkeOwned, helmOwned, namespace, obj } from "./fixtures";

/**
 * The doctor as a whole: every check over one cluster, the report for people and as JSON, exit codes
 * 0/1/2, what it says when it may not read something or cannot run, and the RBAC it prints.
 */

const now = new Date("2027-01-01T00:00:00Z");
const identity = { context: "dev", server: "https://10.0.0.2", version: "v1.36.3" };
const clean = [namespace("default"), namespace("shop")];
const broken = [
  ...clean,
  crd("gateway.networking.k8s.io", "gateways", "Gateway", gkeOwned),
  crd("gateway.networking.k8s.io", "httproutes", "HTTPRoute", helmOwned("linkerd-crds", "linkerd")),
  obj("monitoring.coreos.com/v1", "PodMonitor", "web", "shop", {
    spec: { selector: { matchLabels: { app: "web" } }, podMetricsEndpoints: [{ port: "http" }] },
  }),
];

test("a clean cluster: every check ran, nothing found, exit 0; drift is skipped without a stack", async () => {
  const report = await doctor({ source: objectSource(clean, { identity }), now });
  expect(report.exitCode).toBe(0);
  expect(report.findings).toEqual([]);
  expect(report.checks.map((c) => `${c.name}: ${c.status}`)).toEqual([
    ...checkNames.filter((c) => c !== "drift").map((c) => `${c}: ran`),
    "drift: skipped",
  ]);
  expect(reportText(report)).toBe(
    [
      "gke-mesh-platform doctor (read-only): context dev at https://10.0.0.2, Kubernetes v1.36.3",
      "read at 2027-01-01T00:00:00Z",
      "",
      "crd-owners (who owns each CRD family): ok",
      "",
      "helm-uninstall (what an uninstall of each Helm release deletes): ok",
      "",
      "neg-annotations (NEG annotations of Services behind Google's load balancers): ok",
      "",
      "draining (readiness, preStop and grace of pods behind Google's load balancers): ok",
      "",
      "jobs (meshed Jobs and CronJobs that would never finish): ok",
      "",
      "certificates (cert-manager Certificates, trust anchors and issuers): ok",
      "",
      "webhook-ca (webhook CA bundles against the certificates that serve them): ok",
      "",
      "mesh-enrolment (enrolled namespaces: injectors and proxies): ok",
      "",
      "ingress-meshed (ingress controllers in the mesh): ok",
      "",
      "monitors (monitors that scrape something): ok",
      "",
      "0 errors, 0 warnings (exit 0)",
    ].join("\n"),
  );
});

test("errors exit 2, warnings alone 1; each finding printed with its objects, what follows and the fix", async () => {
  const report = await doctor({ source: objectSource(broken, { identity }), now });
  expect(report.exitCode).toBe(2);
  expect(report.findings.map((f) => `${f.check} ${f.severity} ${f.code}`)).toEqual([
    "crd-owners error gateway-api-crd-owned-by-helm",
    "monitors warning monitor-scrapes-nothing",
  ]);
  const text = reportText(report);
  expect(text).toContain(
    [
      "crd-owners (who owns each CRD family): 1 error",
      "  ERROR gateway-api-crd-owned-by-helm: CustomResourceDefinition httproutes.gateway.networking.k8s.io, Helm",
      "    release linkerd/linkerd-crds",
      "    CustomResourceDefinition httproutes.gateway.networking.k8s.io is owned by Helm release",
      "      linkerd/linkerd-crds (meta.helm.sh/release-name), while GKE manages the Gateway API CRDs on this",
    ].join("\n"),
  );
  expect(text).toContain(
    "\n    fix: keep the CRD and its objects, then take it from the release: kubectl annotate crd",
  );
  expect(text).toContain("\n    why: GKE owns the Gateway API CRDs");
  expect(text.split("\n").filter((l) => l.length > 110 && l.trim().includes(" "))).toEqual([]);
  expect(text.endsWith("1 error, 1 warning (exit 2)")).toBe(true);
  const warnings = await doctor({
    source: objectSource(broken.slice(0, 2).concat(broken[4]), { identity }),
    now,
  });
  expect(warnings.exitCode).toBe(1);
  // JSON: the same report, every field.
  expect(JSON.parse(JSON.stringify(report))).toEqual(report);
});

test("without permission to list a type, each check that needs it says so, and the run exits 1", async () => {
  const report = await doctor({
    source: objectSource(clean, { identity, forbidden: ["pods", "secrets"] }),
    now,
  });
  expect(report.exitCode).toBe(1);
  expect(report.checks.filter((c) => c.status !== "ran" && c.status !== "skipped")).toEqual([
    {
      name: "helm-uninstall",
      title: "what an uninstall of each Helm release deletes",
      status: "partial",
      unchecked: [
        "what each release's uninstall deletes: no permission to list secrets (Helm's release records)",
      ],
    },
    {
      name: "jobs",
      title: "meshed Jobs and CronJobs that would never finish",
      status: "partial",
      unchecked: ["pods stuck with their proxy running: no permission to list pods"],
    },
    {
      name: "certificates",
      title: "cert-manager Certificates, trust anchors and issuers",
      status: "partial",
      unchecked: [
        "the trust anchors and issuers charts make or mount: no permission to list secrets (Helm's release records)",
      ],
    },
    {
      name: "mesh-enrolment",
      title: "enrolled namespaces: injectors and proxies",
      status: "partial",
      unchecked: ["pods without their proxy: no permission to list pods"],
    },
  ]);
  const monitorsBlind = await doctor({
    source: objectSource(broken, { identity, forbidden: ["pods"] }),
    now,
    checks: ["monitors"],
  });
  expect(monitorsBlind.checks.find((c) => c.name === "monitors")).toEqual({
    name: "monitors",
    title: "monitors that scrape something",
    status: "could not check",
    unchecked: ["no permission to list pods"],
  });
  expect(reportText(monitorsBlind)).toContain(
    "monitors (monitors that scrape something): could not check\n  could not check: no permission to list pods",
  );
});

/** The command run with its output captured. */
async function command(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd: process.cwd(),
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    invokedAs: "gke-mesh-platform doctor",
    registerTypeScript: false,
  };
  const code = await doctorCommand(args, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

test("--rbac prints the ClusterRole: get and list on every type the checks read, nothing else", async () => {
  expect(await command("--rbac")).toEqual({ code: 0, stdout: rbacYaml(), stderr: "" });
  const role = doctorClusterRole() as {
    rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[];
  };
  expect(new Set(role.rules.flatMap((r) => r.verbs))).toEqual(new Set(["get", "list"]));
  const granted = new Set(role.rules.flatMap((r) => r.resources.map((x) => `${x}.${r.apiGroups[0]}`)));
  for (const t of Object.values(resources)) expect(granted).toContain(`${t.resource}.${t.group}`);
  // docs/doctor.md shows exactly what it prints.
  const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/doctor.md"), "utf8");
  expect(doc).toContain(`\`\`\`text\n${rbacYaml()}\n\`\`\``);
});

test("a wrong command line is a UsageError naming what is wrong; help exits 0", async () => {
  await expect(command("--kubeconfg", "x")).rejects.toThrow(
    new UsageError("unknown option --kubeconfg (did you mean --kubeconfig?)"),
  );
  await expect(command("examples/books")).rejects.toThrow(
    "examples/books: a program folder is only read with --stack, such as gke-mesh-platform doctor examples/books --stack dev",
  );
  await expect(command("--rbac", "--json")).rejects.toThrow(
    "--rbac prints the ClusterRole and takes nothing else",
  );
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-doctor-"));
  try {
    await expect(command(tmp, "--stack", "dev")).rejects.toThrow(
      /has no Pulumi\.yaml: --stack compares a program's stack/,
    );
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  await expect(command(path.resolve(__dirname, "../../examples/books"), "--stack", "prd")).rejects.toThrow(
    /no stack "prd" in/,
  );
  const help = await command("--help");
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("usage: gke-mesh-platform doctor [options]");
});

test("without kubectl it says so, with how to get it, and exits 2", async () => {
  const before = process.env.KUBECTL;
  process.env.KUBECTL = path.join(os.tmpdir(), "no-such-kubectl");
  try {
    expect(await command()).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "gke-mesh-platform doctor: kubectl not found: the doctor reads the cluster with kubectl and your kubeconfig. Install it (gcloud components install kubectl, or https://kubernetes.io/docs/tasks/tools/), put it on PATH, or name it with KUBECTL=/path/to/kubectl",
    });
  } finally {
    if (before === undefined) delete process.env.KUBECTL;
    else process.env.KUBECTL = before;
  }
});

test("kubectl is found in KUBECTL, else on PATH, else the newest one the tools cache holds", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "render-doctor-"));
  try {
    const bin = path.join(tmp, "bin");
    const cache = path.join(tmp, "cache");
    fs.mkdirSync(bin);
    fs.mkdirSync(path.join(cache, "bin"), { recursive: true });
    for (const v of ["v1.34.4", "v1.36.3"])
      fs.writeFileSync(path.join(cache, "bin", `kubectl-${v}`), "", { mode: 0o755 });
    expect(findKubectl({ PATH: bin, TOOLS_CACHE: cache })).toBe(path.join(cache, "bin", "kubectl-v1.36.3"));
    fs.writeFileSync(path.join(bin, "kubectl"), "", { mode: 0o755 });
    expect(findKubectl({ PATH: bin, TOOLS_CACHE: cache })).toBe(path.join(bin, "kubectl"));
    expect(findKubectl({ PATH: bin, KUBECTL: path.join(cache, "bin", "kubectl-v1.34.4") })).toBe(
      path.join(cache, "bin", "kubectl-v1.34.4"),
    );
    expect(findKubectl({ PATH: "", TOOLS_CACHE: path.join(tmp, "none") })).toBeUndefined();
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
