/**
 * No import cycles (docs/architecture.md, "What may import what"): among the files of core/ and
 * of the rest of the server (transports/, plugins/, lib/, platform/, cli/), no file reaches
 * itself through its imports, type-only imports included. A type-only cycle costs nothing at
 * run time, but it means no part of the circle can be read, tested or moved without the rest:
 * core/platform.ts named the registry, which imports every operation, each of which took the
 * whole platform in its context.
 */
import { describe, expect, it } from "vitest";
import { type Edge, importsUnder } from "./support/imports.ts";

/**
 * Every cycle of the graph, one per strongly connected component (Tarjan's algorithm): the
 * shortest way round from its first file in name order, as `a → b → … → a`.
 */
function findCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (!edge.local) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    lowest.set(file, order.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const imported of next.get(file) ?? []) {
      if (!order.has(imported)) {
        visit(imported);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(imported) as number));
      } else if (onStack.has(imported)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(imported) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)?.includes(file)) components.push(component);
  };
  for (const file of next.keys()) if (!order.has(file)) visit(file);
  return components.map((component) => {
    const members = new Set(component);
    const start = component.toSorted()[0];
    // Breadth first from the start, within the component, until an import leads back to it.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    for (const file of queue) {
      for (const imported of next.get(file) ?? []) {
        if (!members.has(imported)) continue;
        if (imported === start) {
          const path = [file];
          while (path[0] !== start) path.unshift(cameFrom.get(path[0]) as string);
          return `${[...path, start].join(" → ")} (files in the circle: ${component.length})`;
        }
        if (!cameFrom.has(imported)) {
          cameFrom.set(imported, file);
          queue.push(imported);
        }
      }
    }
    throw new Error(`no way round ${start}'s component`);
  });
}

describe("import cycles", () => {
  it("core has none, type-only imports included", async () => {
    const edges = await importsUnder("core");
    expect(edges.length).toBeGreaterThan(100);
    expect(findCycles(edges)).toEqual([]);
  });

  it("the rest of the server has none either", async () => {
    const folders = ["core", "transports", "plugins", "lib", "platform", "cli"];
    const edges = (await Promise.all(folders.map((folder) => importsUnder(folder)))).flat();
    expect(findCycles(edges)).toEqual([]);
  });

  it("finds a cycle of type-only imports, and only a cycle", () => {
    const edge = (from: string, to: string): Edge => ({ from, to, local: true });
    expect(
      findCycles([edge("a.ts", "b.ts"), edge("b.ts", "c.ts"), edge("c.ts", "a.ts"), edge("c.ts", "d.ts")]),
    ).toEqual(["a.ts → b.ts → c.ts → a.ts (files in the circle: 3)"]);
    expect(findCycles([edge("a.ts", "a.ts")])).toEqual(["a.ts → a.ts (files in the circle: 1)"]);
    expect(findCycles([edge("a.ts", "b.ts"), edge("a.ts", "c.ts"), edge("b.ts", "c.ts")])).toEqual([]);
  });
});
