/**
 * Finding a session process's command from the host, to ask it to end (SIGTERM) without ending
 * the helpers around it: the helper's descendants come from /proc's parent links, and the
 * command is everything below the exec's pid 1 (the first descendant whose innermost pid, the
 * last of `NSpid`, is 1). The helpers above it die with a signal's default action, which would
 * take the command down at once (they die with their parent), so they are left out.
 */
import { readdir, readFile } from "node:fs/promises";

async function parentLinks(): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => null);
    if (stat === null) continue;
    // After the command name in parentheses (which may hold anything): state, then the parent.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(name));
    children.set(parent, list);
  }
  return children;
}

async function innermostPid(pid: number): Promise<string | null> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => null);
  const line = status?.split("\n").find((entry) => entry.startsWith("NSpid:"));
  return line?.trim().split(/\s+/).at(-1) ?? null;
}

/** Host pids of the command under `helperPid` and everything it started (empty once gone). */
export async function commandPids(helperPid: number): Promise<number[]> {
  const children = await parentLinks();
  const below = (root: number): number[] => {
    const found: number[] = [];
    const queue = [...(children.get(root) ?? [])];
    while (queue.length > 0) {
      const pid = queue.shift() as number;
      found.push(pid);
      queue.push(...(children.get(pid) ?? []));
    }
    return found;
  };
  for (const pid of below(helperPid)) {
    if ((await innermostPid(pid)) === "1") return below(pid);
  }
  return [];
}

/**
 * Sends SIGTERM to the command of a session process and what it started. A process asked to end
 * just after its start may not have its command yet (the helpers are still setting up): looked
 * for again, briefly.
 */
export async function terminateCommand(helperPid: number): Promise<void> {
  let pids = await commandPids(helperPid);
  for (let attempt = 0; pids.length === 0 && attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    pids = await commandPids(helperPid);
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Gone already.
    }
  }
}
