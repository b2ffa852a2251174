import { disruptionBudgetsValid } from "./checks/disruptionBudgetsValid";
import { monitorsSelect } from "./checks/monitorsSelect";
import { objectsUnique } from "./checks/objectsUnique";
import { productionSizing } from "./checks/productionSizing";
import { proxiesInjected } from "./checks/proxiesInjected";
import { referencesResolve } from "./checks/referencesResolve";
import { releasesTemplate } from "./checks/releasesTemplate";
import {
  acmeSolversOutsideTheMesh,
  noOpenAccess,
  scrapesPassTheMesh,
  type CrossingFinding,
} from "./crossings";
import type { ClusterFinding, ClusterInvariant } from "./findings";
import type { ObjectSet } from "./objectSet";
import { caKeysConfined } from "./secretReaders";
import { certificateFactsHold } from "./certificateFacts";
import { crdClaimsHold } from "./crdClaimFacts";
import { probesAuthorized } from "./probes";

/**
 * The cluster invariants (`clusterInvariants`, lib/cluster/findings.ts) over one object set, each
 * check in its own module: `checks/` one file per invariant, the crossings of mesh, ingress, TLS and
 * monitoring in `crossings.ts`, the CA keys' readers in `secretReaders.ts`.
 */

/** Every invariant over one object set. */
export function checkClusterInvariants(set: ObjectSet): ClusterFinding[] {
  return (Object.keys(checks) as ClusterInvariant[]).flatMap((k) => checks[k](set));
}

/** A crossing check's findings, under its invariant's name. */
const crossing =
  (invariant: ClusterInvariant, check: (set: ObjectSet) => CrossingFinding[]) =>
  (set: ObjectSet): ClusterFinding[] =>
    check(set).map((f) => ({ invariant, ...f }));

const checks: Record<ClusterInvariant, (set: ObjectSet) => ClusterFinding[]> = {
  "objects-unique": objectsUnique,
  "scrapes-pass-the-mesh": crossing("scrapes-pass-the-mesh", scrapesPassTheMesh),
  "acme-solvers-outside-the-mesh": crossing("acme-solvers-outside-the-mesh", acmeSolversOutsideTheMesh),
  "no-open-access": crossing("no-open-access", noOpenAccess),
  "ca-keys-confined": crossing("ca-keys-confined", caKeysConfined),
  "probes-authorized": crossing("probes-authorized", probesAuthorized),
  "certificate-facts-hold": crossing("certificate-facts-hold", certificateFactsHold),
  "crd-claims-hold": crossing("crd-claims-hold", crdClaimsHold),
  "disruption-budgets-valid": disruptionBudgetsValid,
  "releases-template": releasesTemplate,
  "monitors-select": monitorsSelect,
  "proxies-injected": proxiesInjected,
  "production-sizing": productionSizing,
  "references-resolve": referencesResolve,
};
