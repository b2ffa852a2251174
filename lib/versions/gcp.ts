/**
 * Google Cloud names the config is checked against before anything is created, so a typo fails in
 * seconds rather than minutes into `pulumi up`. Pinned like the charts: a region or machine family
 * Google adds later is accepted once it is added here.
 */

/**
 * Every Compute Engine region and the letters of its zones, from the table of
 * cloud.google.com/compute/docs/regions-zones as published in 2025 (42 regions; europe-north2,
 * Stockholm, the newest). GKE runs in each of them.
 */
export const gcpRegions: Readonly<Record<string, readonly string[]>> = {
  "africa-south1": ["a", "b", "c"],
  "asia-east1": ["a", "b", "c"],
  "asia-east2": ["a", "b", "c"],
  "asia-northeast1": ["a", "b", "c"],
  "asia-northeast2": ["a", "b", "c"],
  "asia-northeast3": ["a", "b", "c"],
  "asia-south1": ["a", "b", "c"],
  "asia-south2": ["a", "b", "c"],
  "asia-southeast1": ["a", "b", "c"],
  "asia-southeast2": ["a", "b", "c"],
  "australia-southeast1": ["a", "b", "c"],
  "australia-southeast2": ["a", "b", "c"],
  "europe-central2": ["a", "b", "c"],
  "europe-north1": ["a", "b", "c"],
  "europe-north2": ["a", "b", "c"],
  "europe-southwest1": ["a", "b", "c"],
  "europe-west1": ["b", "c", "d"],
  "europe-west2": ["a", "b", "c"],
  "europe-west3": ["a", "b", "c"],
  "europe-west4": ["a", "b", "c"],
  "europe-west6": ["a", "b", "c"],
  "europe-west8": ["a", "b", "c"],
  "europe-west9": ["a", "b", "c"],
  "europe-west10": ["a", "b", "c"],
  "europe-west12": ["a", "b", "c"],
  "me-central1": ["a", "b", "c"],
  "me-central2": ["a", "b", "c"],
  "me-west1": ["a", "b", "c"],
  "northamerica-northeast1": ["a", "b", "c"],
  "northamerica-northeast2": ["a", "b", "c"],
  "northamerica-south1": ["a", "b", "c"],
  "southamerica-east1": ["a", "b", "c"],
  "southamerica-west1": ["a", "b", "c"],
  "us-central1": ["a", "b", "c", "f"],
  "us-east1": ["b", "c", "d"],
  "us-east4": ["a", "b", "c"],
  "us-east5": ["a", "b", "c"],
  "us-south1": ["a", "b", "c"],
  "us-west1": ["a", "b", "c"],
  "us-west2": ["a", "b", "c"],
  "us-west3": ["a", "b", "c"],
  "us-west4": ["a", "b", "c"],
};

/**
 * Compute Engine machine families and the type names each offers (`<family>-<type>-<vCPUs>`, or
 * `<family>-<type>` for shared-core types), from the machine family pages of
 * cloud.google.com/compute/docs (general-purpose, compute-optimized, memory-optimized,
 * storage-optimized and accelerator-optimized machines) and GKE's TPU node pools
 * (cloud.google.com/kubernetes-engine/docs/concepts/plan-tpus), as published in 2025. `custom` is
 * a custom machine type (`n2-custom-4-16384`); N1's own custom types are `custom-4-16384`.
 */
export const machineFamilies: Readonly<Record<string, readonly string[]>> = {
  // General purpose.
  e2: ["standard", "highcpu", "highmem", "micro", "small", "medium", "custom"],
  n1: ["standard", "highcpu", "highmem", "megamem", "ultramem"],
  n2: ["standard", "highcpu", "highmem", "custom"],
  n2d: ["standard", "highcpu", "highmem", "custom"],
  n4: ["standard", "highcpu", "highmem", "custom"],
  n4a: ["standard", "highcpu", "highmem"],
  n4d: ["standard", "highcpu", "highmem", "custom"],
  c3: ["standard", "highcpu", "highmem"],
  c3d: ["standard", "highcpu", "highmem"],
  c4: ["standard", "highcpu", "highmem"],
  c4a: ["standard", "highcpu", "highmem"],
  c4d: ["standard", "highcpu", "highmem"],
  t2a: ["standard"],
  t2d: ["standard"],
  // Legacy shared-core N1 types: f1-micro and g1-small.
  f1: ["micro"],
  g1: ["small"],
  // Compute optimized.
  c2: ["standard"],
  c2d: ["standard", "highcpu", "highmem"],
  h3: ["standard"],
  h4d: ["standard", "highmem"],
  // Memory optimized.
  m1: ["megamem", "ultramem"],
  m2: ["megamem", "ultramem", "hypermem"],
  m3: ["megamem", "ultramem"],
  m4: ["megamem", "ultramem"],
  x4: ["megamem"],
  // Storage optimized.
  z3: ["standard", "highmem"],
  // Accelerator optimized.
  a2: ["highgpu", "megagpu", "ultragpu"],
  a3: ["highgpu", "megagpu", "ultragpu", "edgegpu"],
  a4: ["highgpu"],
  a4x: ["highgpu"],
  g2: ["standard"],
  g4: ["standard"],
  // Cloud TPU node pools.
  ct4p: ["hightpu"],
  ct5lp: ["hightpu"],
  ct5p: ["hightpu"],
  ct6e: ["standard"],
};

/** Where the lists above come from, for messages that send a user there. */
export const gcpSources = {
  regions: "cloud.google.com/compute/docs/regions-zones",
  machineTypes: "cloud.google.com/compute/docs/machine-resource",
} as const;
