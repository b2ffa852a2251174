import { execFile, spawn, type ChildProcess } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";

/** The real tier's long-running programs: each logs to its own file and is stopped by the tier, or on exit. */

export interface Running {
  readonly name: string;
  /** Its standard output and error. */
  readonly log: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  readonly exited: Promise<string>;
  /** Whether it has ended. */
  readonly done: () => boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has ended. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
// A script that dies leaves nothing running: every child still alive is killed as Node exits.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

export function startProcess(
  name: string,
  file: string,
  args: readonly string[],
  options: { readonly logDir: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string },
): Running {
  fs.mkdirSync(options.logDir, { recursive: true });
  const log = path.join(options.logDir, `${name}.log`);
  const fd = fs.openSync(log, "a");
  fs.writeSync(fd, `$ ${file} ${args.join(" ")}\n`);
  const child = spawn(file, args, {
    stdio: ["ignore", fd, fd],
    env: options.env ?? process.env,
    cwd: options.cwd,
  });
  fs.closeSync(fd);
  live.add(child);
  let ended = false;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = true;
      live.delete(child);
      resolve(signal ?? String(code));
    });
    child.once("error", (err) => {
      ended = true;
      live.delete(child);
      fs.appendFileSync(log, `failed to start: ${err.message}\n`);
      resolve(`error: ${err.message}`);
    });
  });
  return {
    name,
    log,
    child,
    exited,
    done: () => ended,
    async stop(graceMs = 10_000) {
      if (ended) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last lines of a log, to explain a failure. */
export function tail(file: string, lines = 25): string {
  if (!fs.existsSync(file)) return `(no ${file})`;
  return fs.readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * Polls `check` until it returns a value (not undefined), failing after `timeoutMs`, or as soon as one of
 * `watch` ends (with the end of its log).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: {
    readonly timeoutMs?: number;
    readonly intervalMs?: number;
    readonly watch?: readonly Running[];
  } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last = "";
  for (;;) {
    for (const p of options.watch ?? [])
      if (p.done()) throw new Error(`${p.name} exited while waiting for ${what}:\n${tail(p.log)}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${options.timeoutMs ?? 60_000} ms waiting for ${what}${last ? `: ${last}` : ""}`,
      );
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
}

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("no free port"))));
    });
  });
}

/** Runs a command to completion; rejects with its standard error. */
export function run(
  file: string,
  args: readonly string[],
  options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { env: options.env ?? process.env, cwd: options.cwd, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        // Some programs (pulumi) print their errors on standard output: say both, the end of each.
        const said = [stderr, stdout].map((s) => s.trim().slice(-4000)).filter((s) => s);
        reject(new Error(`${path.basename(file)} ${args.join(" ")}: ${said.join("\n") || err.message}`));
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
