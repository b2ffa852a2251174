import * as fs from "fs";
import * as path from "path";

/**
 * The fenced blocks of the README and docs, as test/docs.test.ts checks them against the code and the
 * package tier follows them (test/package): one reading of the Markdown for both.
 */

export interface Marker {
  readonly kind: "config" | "rendered" | "values" | "error";
  readonly body: string;
  readonly line: number;
}

export interface Block {
  /** Relative to the repository, e.g. `docs/apps.md`. */
  readonly file: string;
  /** The line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  readonly marker?: Marker;
}

const markerLine = /^\s*<!--\s*(config|rendered|values|error):\s*(.*?)\s*-->\s*$/;
const fenceLine = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

/** The fenced blocks of a Markdown file, each with the marker on the line before it, and markers with no block. */
export function blocksOf(root: string, file: string): { blocks: Block[]; orphans: Marker[] } {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const blocks: Block[] = [];
  const orphans: Marker[] = [];
  let pending: Marker | undefined;
  let open:
    | { indent: number; fence: string; lang: string; line: number; body: string[]; marker?: Marker }
    | undefined;
  lines.forEach((text, i) => {
    if (open) {
      // A closing fence is the opening one's character, at least as many times, and nothing else.
      const close = text.trim();
      if (close.length >= open.fence.length && close === open.fence[0].repeat(close.length)) {
        blocks.push({
          file,
          line: open.line,
          lang: open.lang,
          text: open.body.join("\n") + "\n",
          marker: open.marker,
        });
        open = undefined;
      } else {
        const indent = Math.min(open.indent, text.length - text.trimStart().length);
        open.body.push(text.slice(indent));
      }
      return;
    }
    const fence = fenceLine.exec(text);
    if (fence) {
      open = {
        indent: fence[1].length,
        fence: fence[2],
        lang: fence[3],
        line: i + 1,
        body: [],
        marker: pending,
      };
      pending = undefined;
      return;
    }
    if (text.trim() === "") return;
    if (pending) orphans.push(pending);
    const m = markerLine.exec(text);
    pending = m ? { kind: m[1] as Marker["kind"], body: m[2], line: i + 1 } : undefined;
  });
  if (pending) orphans.push(pending);
  if (open) throw new Error(`${file}:${open.line}: the block is never closed`);
  return { blocks, orphans };
}
