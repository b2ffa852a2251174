import { PolicyPack } from "@pulumi/policy";
import { policies } from "./policies";

// The pack Pulumi loads with `pulumi preview --policy-pack policy/`.
new PolicyPack("gke-mesh-platform", { policies });
