import * as pulumi from "@pulumi/pulumi";
import { renderProgram } from "../../lib/render";

/** The SDK's reader of a registering resource's stack (@pulumi/pulumi resource.js; not in its typings). */
const sdkCallsites = () => (pulumi.Resource as unknown as { callsites(): unknown[] }).callsites();

test("a render gives the SDK no stack frames to marshal, and leaves stack formatting as it found it", async () => {
  const before = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
  let inside: string | undefined;
  let frames: unknown[] | undefined;
  await renderProgram({
    project: "p",
    stack: "s",
    config: {},
    program: () => {
      // What the SDK does for every resource: lift the limit, read `new Error().stack`.
      frames = sdkCallsites();
      Error.stackTraceLimit = Infinity;
      inside = new Error("probe").stack;
      return {};
    },
  });
  expect(inside).toBe("Error: probe");
  expect(frames).toEqual([]);
  expect(Object.getOwnPropertyDescriptor(Error, "prepareStackTrace")).toEqual(before);
  // Outside the render, stacks have their frames again.
  expect(new Error("after").stack).toMatch(/^Error: after\n\s+at /);
  expect(sdkCallsites().length).toBeGreaterThan(0);
});
