/**
 * Stack traces while a program runs under the mock runtime. The SDK captures one for every promise, for
 * leak reports only a live engine prints; under source maps (tsx, ts-jest) formatting them dominates a
 * large render. Errors raised during the render have no frames then (in a render, no `stack` at all):
 * RENDER_DEBUG=1 keeps them.
 */

/**
 * Silences stack traces until the returned function restores what it found. With `firstLineOnly`, every
 * stack also formats as its error's first line: the SDK reads the whole stack of every resource it
 * registers (@pulumi/pulumi resource.js `callsites`, which lifts the limit), for source positions only an
 * engine shows, and formatted through source maps and marshalled per frame it was an eighth of a large
 * render's allocation. A render reports no source positions; `pulumi up` does, so its shape keeps them.
 */
export function silenceStackTraces(options: { readonly firstLineOnly: boolean }): () => void {
  if (process.env.RENDER_DEBUG) return () => undefined;
  const stackTraceLimit = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
  // Node's own formatter (source maps included) when none is set: restored as found.
  const prepareStackTrace = Object.getOwnPropertyDescriptor(Error, "prepareStackTrace");
  Error.stackTraceLimit = 0;
  if (options.firstLineOnly) {
    Error.prepareStackTrace = (error: Error) => Error.prototype.toString.call(error);
    // An accessor, which V8 does not read as a limit (isolate.cc `GetStackTraceLimit` reads data
    // properties only), so no frame is captured at all, even where the SDK lifts the limit: capturing
    // every frame of every resource's deep stack was 6% of a large render's CPU.
    Object.defineProperty(Error, "stackTraceLimit", {
      configurable: true,
      enumerable: true,
      get: () => 0,
      set: () => undefined,
    });
  }
  return () => {
    if (stackTraceLimit) Object.defineProperty(Error, "stackTraceLimit", stackTraceLimit);
    if (prepareStackTrace) Object.defineProperty(Error, "prepareStackTrace", prepareStackTrace);
    else Reflect.deleteProperty(Error, "prepareStackTrace");
  };
}
