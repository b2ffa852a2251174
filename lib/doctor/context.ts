import type { KubeObject } from "../cluster";
import { helmReleases, type HelmRelease } from "./helm";
import type { Finding, Note } from "./report";
import { resourceArg, resources, type ResourceType } from "./resources";
import type { KubeSource, ListOutcome, SecretOutcome } from "./source";

/** What a check reads the cluster through, and how it says what it could not read. */

/** A check cannot run at all: the message says why (a missing permission). */
export class CannotCheck extends Error {}

export interface CheckContext {
  /** The moment expiry and renewal are judged against. */
  readonly now: Date;
  /** Every object of a type; without permission to list it the check stops: "could not check". */
  need(type: ResourceType): Promise<readonly KubeObject[]>;
  /** Every object of a type, or none where the identity may not list it (said as what it could not check). */
  optional(type: ResourceType, what: string): Promise<readonly KubeObject[]>;
  /** Whether the cluster serves a type (its CRD is installed); undefined where it may not be listed. */
  served(type: ResourceType): Promise<boolean | undefined>;
  /** A Secret's certificates, never its key. */
  secret(namespace: string, name: string): Promise<SecretOutcome>;
  /** Every Helm release's newest record, or undefined where Helm's release Secrets may not be listed. */
  helm(what: string): Promise<readonly HelmRelease[] | undefined>;
  /** Says what the check could not check, and why. */
  unchecked(text: string): void;
}

/** What one check found. `check` is filled in by the runner. */
export interface CheckResult {
  readonly findings: readonly Omit<Finding, "check">[];
  readonly notes?: readonly Omit<Note, "check">[];
}

export type Check = (ctx: CheckContext) => Promise<CheckResult>;

/** The message for a type the identity may not list. */
export function noPermission(type: ResourceType): string {
  return `no permission to list ${resourceArg(type)}`;
}

/** Lists and reads shared by every check: each type is listed once, however many checks read it. */
export class ClusterReads {
  private readonly lists = new Map<string, Promise<ListOutcome>>();
  private releases?: Promise<ReturnType<typeof helmReleases> | undefined>;

  constructor(readonly source: KubeSource) {}

  list(type: ResourceType): Promise<ListOutcome> {
    const key = `${resourceArg(type)}?${type.fieldSelector ? `${type.fieldSelector.field}=${type.fieldSelector.value}` : ""}`;
    let p = this.lists.get(key);
    if (!p) {
      p = this.source.list(type);
      this.lists.set(key, p);
    }
    return p;
  }

  /** The context one check reads through, recording what it could not check in `unchecked`. */
  contextFor(now: Date, unchecked: string[]): CheckContext {
    const said = (text: string) => {
      if (!unchecked.includes(text)) unchecked.push(text);
    };
    return {
      now,
      need: async (type) => {
        const out = await this.list(type);
        if ("forbidden" in out) throw new CannotCheck(noPermission(type));
        return "items" in out ? out.items : [];
      },
      optional: async (type, what) => {
        const out = await this.list(type);
        if ("forbidden" in out) {
          said(`${what}: ${noPermission(type)}`);
          return [];
        }
        return "items" in out ? out.items : [];
      },
      served: async (type) => {
        const out = await this.list(type);
        return "forbidden" in out ? undefined : "items" in out;
      },
      secret: (namespace, name) => this.source.secretCertificates(namespace, name),
      helm: async (what) => {
        // Decoded once: a release record holds its whole chart, gzipped.
        this.releases ??= this.list(resources.helmReleases).then((out) =>
          "forbidden" in out ? undefined : helmReleases("items" in out ? out.items : []),
        );
        const decoded = await this.releases;
        if (!decoded) {
          said(`${what}: no permission to list secrets (Helm's release records)`);
          return undefined;
        }
        for (const u of decoded.unreadable) said(`${u.record}: could not read the Helm release: ${u.reason}`);
        return decoded.releases;
      },
      unchecked: said,
    };
  }
}
