import * as pulumi from "@pulumi/pulumi";
import { renderProgram } from "../../lib/render";

/** The SDK's reader of a registering resource's stack (@pulumi/pulumi resource.js; not in its typings). */
const sdkCallsites = () => (pulumi.Resource as unknown as { callsites(): unknown[] }).callsites();

test("a render gives the SDK no stack frames to marshal, and leaves stack formatting as it found it", async () => {
  const before = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
  const beforeLimit = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
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
  // No stack is captured at all: V8 reads no limit from the accessor the render puts in its place.
  expect(inside).toBeUndefined();
  expect(frames).toEqual([]);
  expect(Object.getOwnPropertyDescriptor(Error, "prepareStackTrace")).toEqual(before);
  expect(Object.getOwnPropertyDescriptor(Error, "stackTraceLimit")).toEqual(beforeLimit);
  // Outside the render, stacks have their frames again.
  expect(new Error("after").stack).toMatch(/^Error: after\n\s+at /);
  expect(sdkCallsites().length).toBeGreaterThan(0);
});
