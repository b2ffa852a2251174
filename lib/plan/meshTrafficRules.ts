import {
  nearest,
  probePathOf,
  showValue,
  type App,
  type ConfigProblem,
  type PlatformConfig,
} from "../config";
import { groupBy } from "../json";
import type { MeshEnforcement, MeshIdentity } from "../meshes";
import { isGuardedIn, meshClosure } from "./isolation";

const cfg = (path: string): string => `platform:${path}`;

/**
 * Rules for apps' mesh routes and authorization, deny-by-default namespaces and namespace isolation:
 * everything they name exists, the chosen mesh can do what they ask, and no rule shuts out the app's
 * own probes.
 */
export function meshTrafficRules(
  config: PlatformConfig,
  mesh: MeshIdentity & MeshEnforcement,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const lacking = meshLacks(mesh);
  const byNamespace = groupBy(config.apps, (a) => a.namespace);
  config.apps.forEach((app, i) => {
    const at = `apps[${i}].mesh`;
    if (app.mesh.routes.length === 0 && !app.mesh.authorization) return;
    if (lacking) {
      problems.push({ path: cfg(at), problem: `is set, but ${lacking.problem}`, fix: lacking.fix });
      return;
    }
    const neighbours = byNamespace.get(app.namespace) ?? [];
    problems.push(...routeRules(mesh, app, neighbours, at), ...authorizationRules(app, neighbours, at));
  });
  if (!lacking) problems.push(...routeNameRules(config), ...guardedPathRules(config, mesh));
  const appNamespaces = [...new Set(config.apps.map((a) => a.namespace))].sort();
  config.mesh.denyByDefault.forEach((ns, i) => {
    const at = cfg(`mesh.denyByDefault[${i}]`);
    if (lacking) {
      problems.push({ path: at, problem: `is set, but ${lacking.problem}`, fix: lacking.fix });
    } else if (!appNamespaces.includes(ns)) {
      problems.push({
        path: at,
        ...unknownName(ns, appNamespaces, "a namespace of an app", "app namespaces"),
      });
    }
  });
  config.apps.forEach((app, i) => {
    if (meshClosure(config, mesh, app.namespace) !== "open" && reservedInDenyNamespaces.includes(app.name)) {
      problems.push({
        path: cfg(`apps[${i}].name`),
        problem: `${showValue(app.name)} is the name of a policy object the platform creates in a namespace that denies by default or is isolated`,
        allowed: `any name but ${reservedInDenyNamespaces.join(", ")}`,
        fix: "rename the app",
      });
    }
  });
  problems.push(...isolationRules(config, appNamespaces));
  return problems;
}

/** `platform:isolation.except` names app namespaces, only where isolation is on, and none that denies by default. */
function isolationRules(config: PlatformConfig, appNamespaces: readonly string[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.isolation.except.forEach((ns, i) => {
    const at = cfg(`isolation.except[${i}]`);
    if (!config.isolation.enabled) {
      problems.push({
        path: at,
        problem: `is set, but isolation is off (isolation.enabled is false${config.tier === "dev" ? ", the dev tier's default" : ""}), so no namespace is isolated and the exception would have no effect`,
        fix: "remove platform:isolation.except, or set platform:isolation.enabled to true",
      });
    } else if (!appNamespaces.includes(ns)) {
      problems.push({
        path: at,
        ...unknownName(ns, appNamespaces, "a namespace of an app", "app namespaces"),
      });
    } else if (config.mesh.denyByDefault.includes(ns)) {
      problems.push({
        path: at,
        problem: `${showValue(ns)} would be left open to every namespace, but mesh.denyByDefault names it, so the mesh refuses every call to it that no rule allows`,
        allowed: `app namespaces not in mesh.denyByDefault: ${appNamespaces.filter((n) => !config.mesh.denyByDefault.includes(n)).join(", ") || "none"}`,
        fix: `remove ${showValue(ns)} from platform:isolation.except (its NetworkPolicy then agrees with the mesh), or from platform:mesh.denyByDefault`,
      });
    }
  });
  return problems;
}

/** Objects a deny-by-default namespace holds (Istio's allow-nothing policy, Linkerd's proxy admin Server). */
const reservedInDenyNamespaces = ["deny-by-default", "linkerd-proxy-admin"];

/** The HTTPRoute that sends a Service's unrouted requests to itself (lib/manifests MeshRoutes). */
export const restRouteSuffix = "mesh-default";

/**
 * Why a path cannot be an HTTPRoute path match: the Gateway API CRD's own rules
 * (gateway.networking.k8s.io_httproutes.yaml v1.5.0, path.value), checked here rather than by the API
 * server after the rest of the stack has deployed.
 */
function routePathProblem(path: string): string | undefined {
  const value = path.endsWith("/*") ? path.slice(0, -1) : path;
  if (!/^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$/.test(value))
    return "has characters a route path cannot hold (letters, digits, -._~!$&'()*+,;=:@/ and %XX escapes only; no query)";
  for (const bad of ["//", "/./", "/../", "%2f", "%2F", "#"]) {
    if (value.includes(bad)) return `contains ${showValue(bad)}, which a route path may not`;
  }
  if (value.endsWith("/.") || value.endsWith("/.."))
    return "ends in a dot segment, which a route path may not";
  return undefined;
}

/** Why the environment's mesh cannot enforce routes or authorization, if it cannot. */
function meshLacks(mesh: MeshIdentity & MeshEnforcement): { problem: string; fix: string } | undefined {
  if (!mesh.policy) {
    return {
      problem: `mesh.kind is "${mesh.kind}": routes and authorization are enforced by the mesh's proxies`,
      fix: 'set platform:mesh.kind to "linkerd" or "istio", or remove it',
    };
  }
  if (mesh.policy.unsupported) {
    return {
      problem: mesh.policy.unsupported,
      fix: 'set platform:mesh.dataplane to "sidecar", or remove it',
    };
  }
  return undefined;
}

function unknownName(
  value: string,
  candidates: readonly string[],
  what: string,
  listed: string,
): { problem: string; allowed: string; fix: string } {
  const suggestion = nearest(value, candidates);
  return {
    problem: `${showValue(value)} is not ${what}` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
    allowed: candidates.length > 0 ? `${listed}: ${candidates.join(", ")}` : `no ${listed} yet`,
    fix: suggestion ? `write "${suggestion}"` : `add that app to platform:apps, or name one of the ${listed}`,
  };
}

/** Milliseconds of a Gateway API duration such as 1m30s. */
function durationMs(value: string): number {
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const [, n, u] of value.matchAll(/([0-9]+)(ms|h|m|s)/g)) total += Number(n) * unit[u];
  return total;
}

function routeRules(
  mesh: MeshIdentity & MeshEnforcement,
  app: App,
  neighbours: readonly App[],
  at: string,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = neighbours.map((a) => a.name);
  app.mesh.routes.forEach((route, j) => {
    const r = `${at}.routes[${j}]`;
    route.backends.forEach((b, k) => {
      const target = neighbours.find((a) => a.name === b.app);
      if (!target) {
        problems.push({
          path: cfg(`${r}.backends[${k}].app`),
          ...unknownName(b.app, names, `a Service in namespace ${showValue(app.namespace)}`, "apps there"),
        });
      } else if (b.port !== undefined && b.port !== target.port) {
        problems.push({
          path: cfg(`${r}.backends[${k}].port`),
          problem: `${b.port} is not a port of the Service ${showValue(target.name)}, which serves ${target.port}`,
          allowed: String(target.port),
          fix: `set it to ${target.port}, or remove it (the app's port is the default)`,
        });
      }
    });
    if (route.backends.every((b) => b.weight === 0)) {
      problems.push({
        path: cfg(`${r}.backends`),
        problem: "has only weights of 0, so every request it matches would fail",
        fix: "give at least one backend a weight above 0",
      });
    }
    const noRetries = mesh.policy?.retriesUnsupported;
    if (route.retry && noRetries) {
      problems.push({
        path: cfg(`${r}.retry`),
        problem: `is set, but ${mesh.title} does not support retries on GKE's HTTPRoutes: ${noRetries.reason}`,
        fix: noRetries.fix,
      });
    }
    const t = route.timeouts;
    const noBackendTimeout = mesh.policy?.backendRequestUnsupported;
    if (t?.backendRequest !== undefined && noBackendTimeout) {
      problems.push({
        path: cfg(`${r}.timeouts.backendRequest`),
        problem: `is set, but on ${mesh.title} ${noBackendTimeout.reason}`,
        fix: noBackendTimeout.fix,
      });
    }
    // A request timeout of 0s means none (GEP-1742).
    const bounded = t?.request !== undefined && durationMs(t.request) > 0;
    if (bounded && t?.request && t.backendRequest && durationMs(t.backendRequest) > durationMs(t.request)) {
      problems.push({
        path: cfg(`${r}.timeouts.backendRequest`),
        problem: `${showValue(t.backendRequest)} is longer than timeouts.request ${showValue(t.request)}, which bounds the whole request`,
        allowed: `at most ${t.request}`,
        fix: "shorten backendRequest, or lengthen request",
      });
    }
    if (route.fault && route.backends.length > 15) {
      problems.push({
        path: cfg(`${r}.backends`),
        problem: `has ${route.backends.length} backends, and the fault injector would be one more than the 16 an HTTPRoute rule takes`,
        allowed: "at most 15 backends with a fault",
        fix: "remove backends, or the fault",
      });
    }
    route.matches.forEach((m, k) => {
      const bad = m.path !== undefined ? routePathProblem(m.path) : undefined;
      if (bad && m.path !== undefined)
        problems.push({
          path: cfg(`${r}.matches[${k}].path`),
          problem: `${showValue(m.path)} ${bad}`,
          fix: "write a plain path",
        });
    });
    if (route.fault && names.includes(`fault-${route.fault.status}`)) {
      problems.push({
        path: cfg(`${r}.fault`),
        problem: `needs the fault injector "fault-${route.fault.status}", but an app in namespace ${showValue(app.namespace)} has that name`,
        fix: "rename that app",
      });
    }
  });
  return problems;
}

/** Every HTTPRoute name the platform would create in each namespace: mesh routes and GKE Gateway exposures. */
function routeNameRules(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const taken = new Map<string, string>();
  const claim = (ns: string, name: string, by: string, at: string) => {
    const first = taken.get(`${ns}/${name}`);
    if (first) {
      problems.push({
        path: cfg(at),
        problem: `makes the HTTPRoute ${ns}/${name}, which ${first} makes too`,
        fix: "rename the route (routes are named <app>-<route>)",
      });
    } else taken.set(`${ns}/${name}`, by);
  };
  config.apps.forEach((app, i) => {
    if (app.expose?.via.includes("gke-gateway"))
      claim(app.namespace, app.name, `app ${app.name}'s GKE Gateway exposure`, `apps[${i}].name`);
  });
  config.apps.forEach((app, i) => {
    if (app.mesh.routes.length > 0)
      claim(
        app.namespace,
        `${app.name}-${restRouteSuffix}`,
        `app ${app.name}'s unrouted requests`,
        `apps[${i}].mesh.routes`,
      );
    app.mesh.routes.forEach((route, j) =>
      claim(
        app.namespace,
        `${app.name}-${route.name}`,
        `app ${app.name}'s route ${route.name}`,
        `apps[${i}].mesh.routes[${j}].name`,
      ),
    );
  });
  return problems;
}

/** Paths that become route matches once an app is guarded: its probe, metrics and exposed paths. */
function guardedPathRules(config: PlatformConfig, mesh: MeshEnforcement): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.apps.forEach((app, i) => {
    if (!isGuardedIn(config, mesh, app)) return;
    const paths: [string, string][] = [
      [app.expose ? `apps[${i}].expose.healthCheckPath` : `apps[${i}]`, probePathOf(app)],
      ...(app.metrics ? [[`apps[${i}].metrics.path`, app.metrics.path] as [string, string]] : []),
      ...(app.expose ? [[`apps[${i}].expose.path`, app.expose.path] as [string, string]] : []),
    ];
    for (const [at, path] of paths) {
      const bad = path.includes("*")
        ? "contains *, which authorization would read as a prefix"
        : routePathProblem(path);
      if (bad)
        problems.push({
          path: cfg(at),
          problem: `${showValue(path)} ${bad}; the app's authorization lets this path in through a route`,
          fix: "write a plain path",
        });
    }
  });
  return problems;
}

function authorizationRules(app: App, neighbours: readonly App[], at: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const names = neighbours.map((a) => a.name);
  // Calls that come from outside the mesh, without an identity: a rule naming their path would shut them out.
  const unmeshed = [
    {
      path: probePathOf(app),
      what: "probe path",
      who: "kubelet's probes",
      result: "the pod would never become ready",
    },
    ...(app.metrics
      ? [
          {
            path: app.metrics.path,
            what: "metrics path",
            who: "Prometheus's scrapes",
            result: "its metrics would stop",
          },
        ]
      : []),
  ];
  app.mesh.authorization?.rules.forEach((rule, j) => {
    const r = `${at}.authorization.rules[${j}]`;
    rule.from.forEach((caller, k) => {
      if (!caller.includes("/") && !names.includes(caller)) {
        const unknown = unknownName(
          caller,
          names,
          `an app in namespace ${showValue(app.namespace)}`,
          "apps there",
        );
        problems.push({
          path: cfg(`${r}.from[${k}]`),
          ...unknown,
          fix: unknown.fix.startsWith("write")
            ? unknown.fix
            : "name an app of this namespace, or a service account elsewhere as <namespace>/<name>",
        });
      }
    });
    rule.paths?.forEach((path, k) => {
      const bad = routePathProblem(path);
      if (bad)
        problems.push({
          path: cfg(`${r}.paths[${k}]`),
          problem: `${showValue(path)} ${bad}`,
          fix: "write a plain path",
        });
    });
    if (rule.methods && !rule.methods.includes("GET")) return;
    for (const u of unmeshed) {
      const p = rule.paths?.indexOf(u.path) ?? -1;
      if (p === -1) continue;
      problems.push({
        path: cfg(`${r}.paths[${p}]`),
        problem: `${showValue(u.path)} is the app's ${u.what}: the rule asks that only its callers may GET it, but ${u.who} come from outside the mesh, with no identity; honoured, it would refuse them and ${u.result}, so the platform keeps the path open to every address and cannot restrict it`,
        fix: `remove ${u.path} from the rule`,
      });
    }
  });
  return problems;
}
