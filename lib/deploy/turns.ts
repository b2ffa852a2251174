import * as pulumi from "@pulumi/pulumi";

/**
 * Registration in turns. The SDK serialises a resource's inputs asynchronously after its constructor
 * returns, so a program that builds every object in one synchronous pass holds every object's
 * in-flight copies at once: at 1,000 apps (about 28,000 objects), more than a 1.5 GB heap under the
 * mock runtime. A unit of work given to `inTurn` (one app, one app's exposure, one namespace's policy)
 * runs on its own turn of the event loop, in the order given, so the SDK has finished with one unit's
 * objects before the next is built. The program stays alive until the last unit has run
 * (the SDK's `runtime.rpcKeepAlive`, which `runtime.disconnect` waits for).
 */

let tail: Promise<void> = Promise.resolve();

/** Where a failing unit's error goes: a render's collector, or the SDK's unhandled-rejection report. */
let sink: ((error: unknown) => void) | undefined;

/**
 * Runs `build` on a later turn of the event loop, after every unit given before it. Its objects are
 * registered then; `build` must not be needed by anything built synchronously after this call.
 */
export function inTurn(build: () => void): void {
  const done = pulumi.runtime.rpcKeepAlive();
  const unit = tail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(build);
  tail = unit.then(
    () => done(),
    (error: unknown) => {
      done();
      // Under `pulumi up` an unhandled rejection is the SDK's program failure (cmd/run/run.js
      // `uncaughtHandler`), reported as a program error thrown synchronously would be.
      if (sink) sink(error);
      else void Promise.reject(error instanceof Error ? error : new Error(String(error)));
    },
  );
}

/**
 * Collects the errors of units that fail, instead of leaving them to the SDK's process-wide handler,
 * for a caller that runs programs itself (a render). Returns the function that stops collecting.
 */
export function collectTurnFailures(collect: (error: unknown) => void): () => void {
  const previous = sink;
  sink = collect;
  return () => {
    sink = previous;
  };
}
