import type { ClusterInvariant } from "../../lib/cluster";
import type { QueryFinding } from "./queries";

/** A cluster-tier finding whose fix belongs to another open issue. */
export interface KnownFailure {
  readonly invariant: ClusterInvariant | QueryFinding["invariant"];
  /** The objects at fault, as findings name them (`Kind namespace/name`). */
  readonly object: RegExp;
  /** Only in these renders. @default every render */
  readonly target?: RegExp;
  /** Why it happens. */
  readonly reason: string;
  /** The issue whose fix removes it. */
  readonly owner: string;
}

/** The findings whose fix is not in place yet, each with its reason and owner: the list only shrinks. */
export const knownFailures: readonly KnownFailure[] = [];
