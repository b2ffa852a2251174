/** Label selectors as the API server evaluates them, without any cdk8s import. */

/** A label selector (metav1.LabelSelector). */
export interface SelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}

/**
 * Whether `labels` match a label selector, as the API server evaluates it: every matchLabels pair and
 * every expression (In, NotIn, Exists, DoesNotExist). An absent or empty selector matches everything.
 */
export function selects(
  selector: SelectorSpec | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        if (!has || !values.includes(labels[e.key])) return false;
        break;
      case "NotIn":
        if (has && values.includes(labels[e.key])) return false;
        break;
      case "Exists":
        if (!has) return false;
        break;
      case "DoesNotExist":
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * The label the API server sets on every namespace, its name (Kubernetes 1.22+, NamespaceDefaultLabelName:
 * kubernetes.io/docs/concepts/services-networking/network-policies "Targeting a Namespace by its name").
 */
export const namespaceNameLabel = "kubernetes.io/metadata.name";
