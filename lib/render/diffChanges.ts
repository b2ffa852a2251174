/** The shape of a render diff: each object's change, grouped by the component it belongs to. */
import type { FieldChange, Replacement } from "./diffFields";

export type ChangeKind = "added" | "changed" | "removed" | "replaced";

export interface ObjectChange {
  readonly change: ChangeKind;
  /** `Deployment shop/shop`, `NodePool gke-dev-default`. */
  readonly object: string;
  /** The Pulumi resource (`type::name`), or a chart's object (`<group>/<Kind>/<namespace>/<name>`). */
  readonly key: string;
  readonly fields?: readonly FieldChange[];
  readonly replacedBy?: readonly Replacement[];
  /** What happens, in words: who replaces it and how, what stops it. */
  readonly notes?: readonly string[];
}

export interface ComponentChanges {
  /** The Pulumi component (`platform-app-shop-shop (App)`); a chart's objects: `<component> / release <ns>/<name> (...)`. */
  readonly component: string;
  readonly objects: readonly ObjectChange[];
}

export interface RenderDiff {
  /** Where the earlier render came from. */
  readonly before: string;
  readonly after: string;
  readonly counts: Readonly<Record<ChangeKind, number>>;
  readonly components: readonly ComponentChanges[];
  /** What could not be compared, and why. */
  readonly notes: readonly string[];
}

/** Changed objects by component, in the order components first appear. */
export class Groups {
  private readonly byLabel = new Map<string, ObjectChange[]>();
  /** Chart groups come right after the component their release is in. */
  private readonly after = new Map<string, string[]>();

  order(label: string): void {
    if (!this.byLabel.has(label)) this.byLabel.set(label, []);
  }

  add(label: string, change: ObjectChange): void {
    this.order(label);
    this.byLabel.get(label)?.push(change);
  }

  /** A group placed right after `anchor`. */
  addAfter(anchor: string, label: string, change: ObjectChange): void {
    const list = this.after.get(anchor) ?? [];
    if (!list.includes(label)) list.push(label);
    this.after.set(anchor, list);
    const objects = this.byLabel.get(label) ?? [];
    objects.push(change);
    if (!this.byLabel.has(label)) this.byLabel.set(label, objects);
  }

  result(): ComponentChanges[] {
    const placed = new Set([...this.after.values()].flat());
    const out: ComponentChanges[] = [];
    const emit = (label: string): void => {
      const objects = this.byLabel.get(label) ?? [];
      if (objects.length > 0) out.push({ component: label, objects });
      for (const next of this.after.get(label) ?? []) emit(next);
    };
    for (const label of this.byLabel.keys()) if (!placed.has(label)) emit(label);
    // Chart groups whose component has no other changes and was never seen: at the end.
    for (const [anchor, labels] of this.after) {
      if (!this.byLabel.has(anchor)) for (const l of labels) emit(l);
    }
    return out;
  }
}
