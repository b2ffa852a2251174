import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/**
 * `npm run time-tests`: runs `npm test` as a user runs it and prints how long it took, in wall time and
 * in CPU time (the test processes' own, which the machine's other work does not inflate), with what
 * it ran on, so the README can quote it. By default jest starts from an empty cache, as on a fresh
 * clone; `--warm` keeps jest's usual cache. Any other arguments go to jest (`-- --runInBand`).
 * Exits with npm test's code.
 */

const root = path.resolve(__dirname, "..");

/** CPU seconds used by this process's finished children (Linux: /proc/self/stat cutime and cstime). */
function childrenCpu(): { user: number; system: number } | undefined {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    // Fields after the command name (which is in parentheses and may hold spaces); cutime is field 16.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = 100; // USER_HZ, 100 on every Linux platform Node supports
    return { user: Number(fields[13]) / ticks, system: Number(fields[14]) / ticks };
  } catch {
    return undefined;
  }
}

function version(command: string): string {
  const result = spawnSync(command, ["--version"], { encoding: "utf8", shell: process.platform === "win32" });
  return result.status === 0 ? result.stdout.trim() : "unknown";
}

function main(): number {
  const args = process.argv.slice(2);
  const warm = args.includes("--warm");
  const jestArgs = args.filter((a) => a !== "--warm" && a !== "--");
  const cache = warm ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), "jest-cold-"));
  const load = () =>
    os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
  const loadBefore = load();
  const before = childrenCpu();
  const started = process.hrtime.bigint();
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["test", "--", ...(cache ? ["--cacheDirectory", cache] : []), ...jestArgs], {
    cwd: root,
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const after = childrenCpu();
  if (cache) fs.rmSync(cache, { recursive: true, force: true });
  process.stderr.write(result.stderr);
  const summary = result.stderr.trim().split("\n").pop() ?? "";
  const cpu =
    before && after
      ? {
          user: after.user - before.user,
          system: after.system - before.system,
        }
      : undefined;
  const cpus = os.cpus();
  const lines = [
    "",
    `npm test: ${summary.replace(/:.*/, "")}`,
    cpu
      ? `wall ${wall.toFixed(1)} s, CPU ${(cpu.user + cpu.system).toFixed(1)} s (user ${cpu.user.toFixed(1)} s, system ${cpu.system.toFixed(1)} s), ${((cpu.user + cpu.system) / wall).toFixed(1)} cores busy on average`
      : `wall ${wall.toFixed(1)} s (CPU time is read from /proc, which this system lacks)`,
    `machine: ${cpus.length} x ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}; Node ${process.versions.node}, npm ${version(npm)}`,
    `load average (1, 5, 15 min) before: ${loadBefore}, after: ${load()}: other work on the machine stretches the wall time, not the CPU time`,
    `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; jest cache: ${cache ? "empty at the start, as on a fresh clone" : "warm"}`,
  ];
  console.log(lines.join("\n"));
  return result.status ?? 1;
}

process.exitCode = main();
