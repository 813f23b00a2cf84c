/**
 * File descriptors the server inherited without close-on-exec (from a supervisor, a shell, a test
 * harness) would otherwise pass through the wrapper and bwrap into every sandbox: dash cannot close
 * descriptors above 9 and bwrap keeps what it is given. They are found once at start and each exec
 * gets /dev/null dup'ed over them instead.
 */
import { openSync, readdirSync, readFileSync } from "node:fs";

const closeOnExec = 0o2000000;

export interface DescriptorMask {
  /** The `stdio` array for spawn: pipes for stdout and stderr, /dev/null over every inherited descriptor. */
  stdio: Array<"ignore" | "pipe" | number>;
}

export function createDescriptorMask(): DescriptorMask {
  const inherited: number[] = [];
  for (const entry of readdirSync("/proc/self/fd")) {
    const descriptor = Number(entry);
    if (!Number.isInteger(descriptor) || descriptor <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${descriptor}`, "utf8"));
      if (flags !== null && (Number.parseInt(flags[1], 8) & closeOnExec) === 0) inherited.push(descriptor);
    } catch {
      // Closed while we looked (the directory listing's own descriptor, for one).
    }
  }
  const stdio: Array<"ignore" | "pipe" | number> = ["ignore", "pipe", "pipe"];
  if (inherited.length === 0) return { stdio };
  // Opened by Node with O_CLOEXEC, so it only reaches children where placed explicitly.
  const devNull = openSync("/dev/null", "r");
  for (let descriptor = 3; descriptor <= Math.max(...inherited); descriptor++) {
    stdio.push(inherited.includes(descriptor) ? devNull : "ignore");
  }
  return { stdio };
}
