import type { Check } from "../context";
import type { CheckName } from "../report";
import { certificates } from "./certificates";
import { crdOwners } from "./crdOwners";
import { draining } from "./draining";
import { helmUninstall } from "./helmUninstall";
import { ingressMeshed } from "./ingressMeshed";
import { jobs } from "./jobs";
import { meshEnrolment } from "./meshEnrolment";
import { monitors } from "./monitors";
import { negAnnotations } from "./neg";
import { webhookCa } from "./webhookCa";

/** Every check that reads the cluster alone; `drift` also needs a stack's render (`driftCheck`). */
export const clusterChecks: Readonly<Record<Exclude<CheckName, "drift">, Check>> = {
  "crd-owners": crdOwners,
  "helm-uninstall": helmUninstall,
  "neg-annotations": negAnnotations,
  draining,
  jobs,
  certificates,
  "webhook-ca": webhookCa,
  "mesh-enrolment": meshEnrolment,
  "ingress-meshed": ingressMeshed,
  monitors,
};

export { driftCheck, renderForDrift, fieldDrift, type StackRender, type FieldDrift } from "./drift";
export { crdOwnerMarks, type CrdOwnerMark } from "./crdOwners";
export { expectedNeg } from "./neg";
