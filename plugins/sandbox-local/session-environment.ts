/**
 * The environment of a session's commands: the sandbox default (bubblewrap-arguments.ts), plus
 * a custom image's paths (image-layer.ts) and the egress proxy's variables (session-egress.ts)
 * when the session has them. Undefined means the default.
 */
import { sandboxEnvironment } from "./bubblewrap-arguments.ts";
import { imageEnvironment } from "./image-layer.ts";
import type { SandboxRecord } from "./sandbox-records.ts";
import { egressEnvironment } from "./session-egress.ts";

export function sessionEnvironment(record: SandboxRecord): Record<string, string> | undefined {
  const image = Boolean(record.image?.layerPath);
  const egress = record.egressHosts.length > 0;
  if (!image && !egress) return undefined;
  return { ...(image ? imageEnvironment() : sandboxEnvironment), ...(egress ? egressEnvironment : {}) };
}
