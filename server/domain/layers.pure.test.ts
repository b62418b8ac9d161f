// The folders of server/domain form layers: no two folders import each other, directly or
// through others. A piece two folders share moves down (server/shared, or the folder that owns
// it); this test reads every import (type imports too) and names the cycle that came back.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DOMAIN = path.resolve(import.meta.dirname);
const IMPORT_RE = /(?:^|\s)(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** The domain folder a specifier of `file` points into, or null (outside server/domain). */
function folderOf(file: string, spec: string): string | null {
  let target: string;
  if (spec.startsWith("@/")) target = path.resolve(DOMAIN, "../..", spec.slice(2));
  else if (spec.startsWith(".")) target = path.resolve(path.dirname(file), spec);
  else return null;
  const rel = path.relative(DOMAIN, target);
  if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
  return rel.split(path.sep)[0];
}

/** folder → folder → the first file and specifier that make the edge. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources(DOMAIN)) {
    const from = path.relative(DOMAIN, file).split(path.sep)[0];
    if (!graph.has(from)) graph.set(from, new Map());
    for (const m of readFileSync(file, "utf8").matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2];
      const to = folderOf(file, spec);
      if (to === null || to === from || !to || to.includes(".")) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, `${path.relative(DOMAIN, file)} imports ${spec}`);
    }
  }
  return graph;
}

/**
 * The cycles of the graph: one line per group of folders that reach each other (a strongly
 * connected component), showing the shortest ring through its first folder and the imports on it.
 */
function cycles(graph: Map<string, Map<string, string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const connect = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return groups.map((group) => {
    const start = group[0];
    const prev = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !prev.has(start)) {
      const v = queue.shift()!;
      for (const w of graph.get(v)?.keys() ?? []) {
        if (!group.includes(w) || prev.has(w)) continue;
        prev.set(w, v);
        queue.push(w);
      }
    }
    const ring = [start];
    for (let v = prev.get(start)!; v !== start; v = prev.get(v)!) ring.unshift(v);
    ring.unshift(start);
    return ring
      .slice(0, -1)
      .map((f, i) => `${f} → ${ring[i + 1]} (${graph.get(f)!.get(ring[i + 1])})`)
      .join("; ");
  });
}

describe("server/domain folders", () => {
  it("import each other without cycles", () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it("finds a cycle when one is there (the check itself)", () => {
    const graph = new Map([
      ["a", new Map([["b", "a/x.ts imports ../b/y"]])],
      ["b", new Map([["c", "b/y.ts imports ../c/z"]])],
      ["c", new Map([["a", "c/z.ts imports ../a/x"]])],
    ]);
    expect(cycles(graph)).toEqual(["a → b (a/x.ts imports ../b/y); b → c (b/y.ts imports ../c/z); c → a (c/z.ts imports ../a/x)"]);
  });
});
