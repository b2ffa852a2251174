import { gcpRegions, gcpSources, machineFamilies } from "../versions";
import { nearest, showValue } from "./errors";
import type { ValueProblem } from "./valueChecks";

/**
 * Google Cloud regions, zones and machine types, checked against the pinned lists in
 * lib/versions/gcp.ts, with the nearest valid name when one is close.
 */

const regions = Object.keys(gcpRegions);
const regionExample = "europe-west1";

// Short forms people write for a region's first word (AWS's eu-west-1, Azure's westeurope aside).
const continentAliases: Readonly<Record<string, string>> = {
  eu: "europe",
  euro: "europe",
  as: "asia",
  ap: "asia",
  au: "australia",
  aus: "australia",
  af: "africa",
  na: "northamerica",
  sa: "southamerica",
};

/** `eu-west-1` and `Europe-West1` to `europe-west1`: the region a typo most likely meant. */
function nearestRegion(value: string): string | undefined {
  const words = value
    .trim()
    .toLowerCase()
    .replace(/_/g, "-")
    .replace(/-(\d+)$/, "$1")
    .split("-");
  const normalized = [continentAliases[words[0]] ?? words[0], ...words.slice(1)].join("-");
  if (normalized in gcpRegions) return normalized;
  return nearest(normalized, regions);
}

/** A Compute Engine region, such as europe-west1. */
export function gcpRegionProblem(value: string): ValueProblem | undefined {
  if (value in gcpRegions) return undefined;
  const zone = /^(.+)-[a-z]$/.exec(value);
  const suggestion = zone && zone[1] in gcpRegions ? zone[1] : nearestRegion(value);
  const isZone = zone !== null && suggestion === zone[1];
  return {
    problem:
      `${showValue(value)} is ${isZone ? "a zone, not a region" : "not a GCP region"}` +
      (suggestion && !isZone ? ` (did you mean "${suggestion}"?)` : ""),
    allowed: `a GCP region such as ${regionExample} (one of the ${regions.length} of ${gcpSources.regions})`,
    fix: (path) =>
      `set ${path} to ${suggestion ? `"${suggestion}"` : `a region of ${gcpSources.regions}, such as ${regionExample}`}`,
  };
}

/** A region (a regional cluster) or one of its zones (a zonal cluster), such as europe-west1-b. */
export function gcpLocationProblem(value: string): ValueProblem | undefined {
  if (value in gcpRegions) return undefined;
  const zone = /^(.+)-([a-z])$/.exec(value);
  if (!zone) {
    const regional = gcpRegionProblem(value);
    return regional && { ...regional, allowed: locationAllowed };
  }
  const [, region, letter] = zone;
  const zones = gcpRegions[region] as readonly string[] | undefined;
  if (!zones) {
    const near = nearestRegion(region);
    const suggestion = near ? zoneOf(near, letter) : undefined;
    return {
      problem:
        `${showValue(value)} is not a GCP zone: ${showValue(region)} is not a region` +
        (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
      allowed: locationAllowed,
      fix: (path) =>
        `set ${path} to ${suggestion ? `"${suggestion}"` : `a region or zone of ${gcpSources.regions}, such as ${regionExample}-b`}`,
    };
  }
  if (zones.includes(letter)) return undefined;
  const suggestion = zoneOf(region, letter);
  return {
    problem: `${showValue(value)} is not a zone of ${region} (did you mean "${suggestion}"?)`,
    allowed: `${region}, or one of its zones: ${zones.map((z) => `${region}-${z}`).join(", ")}`,
    fix: (path) => `set ${path} to "${suggestion}"`,
  };
}

const locationAllowed = `a GCP region such as ${regionExample} (a regional cluster), or one of its zones such as ${regionExample}-b (a zonal cluster), from ${gcpSources.regions}`;

/** The region's zone with that letter, or its first zone. */
function zoneOf(region: string, letter: string): string {
  const zones = gcpRegions[region];
  return `${region}-${zones.includes(letter) ? letter : zones[0]}`;
}

const families = Object.keys(machineFamilies);
const machineExample = "e2-standard-4";
// The rest of a type after `<family>-<type>`: vCPUs (and GPUs or TPUs, as 8g or 4t), then suffixes
// such as -lssd or -metal; custom types add memory in MB and an optional -ext.
const machineRest = /^(-[0-9]+[gt]?)?(-[a-z0-9]+)*$/;

/** A Compute Engine machine type of a known family, such as e2-standard-4. */
export function machineTypeProblem(value: string): ValueProblem | undefined {
  // N1 custom types carry no family: custom-<vCPUs>-<MB>.
  if (/^custom-[0-9]+-[0-9]+(-ext)?$/.test(value)) return undefined;
  const match = /^([a-z0-9]+)-([a-z]+)(.*)$/.exec(value);
  const family = match?.[1];
  const types = family !== undefined ? machineFamilies[family] : undefined;
  if (match && types?.includes(match[2]) && machineRest.test(match[3])) return undefined;
  if (!match || types === undefined) {
    const near = match ? nearest(match[1], families) : undefined;
    const suggestion =
      near && match && machineFamilies[near].includes(match[2])
        ? `${near}-${match[2]}${match[3]}`
        : undefined;
    return {
      problem:
        `${showValue(value)} is not a Compute Engine machine type` +
        (match ? `: ${showValue(match[1])} is not a machine family` : "") +
        (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
      allowed: `a machine type <family>-<type>-<vCPUs> such as ${machineExample}, of a family listed at ${gcpSources.machineTypes} (${families.join(", ")})`,
      fix: (path) =>
        `set ${path} to ${suggestion ? `"${suggestion}"` : `a machine type such as ${machineExample}`}`,
    };
  }
  const typeName = nearest(match[2], types);
  const suggestion = typeName && machineRest.test(match[3]) ? `${family}-${typeName}${match[3]}` : undefined;
  return {
    problem:
      `${showValue(value)} is not a Compute Engine machine type: ${family} has no type ${showValue(match[2])}` +
      (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
    allowed: `${family}-<type>-<vCPUs> with a type of ${types.join(", ")}, such as ${family}-${types[0]}-4`,
    fix: (path) =>
      `set ${path} to ${suggestion ? `"${suggestion}"` : `a machine type such as ${family}-${types[0]}-4`}`,
  };
}
