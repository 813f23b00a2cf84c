/**
 * Maps sandbox paths to host paths the way the sandbox itself sees them. Symlinks are resolved
 * here, in sandbox terms (an absolute link target is a sandbox path, not a host path), one
 * component at a time with lstat and readlink, each made from its parent directory opened
 * component by component with O_NOFOLLOW (so a link swapped into an earlier component by a
 * concurrent exec fails the lookup rather than leading it onto a host path, where it could tell
 * whether a host file exists); the result must lie inside one of the sandbox's
 * roots or the path is refused with `path_outside_sandbox`. The caller then opens the result
 * without following any symlink (see file-system.ts), so a link swapped in after this check
 * makes the operation fail instead of escaping.
 */
import { constants } from "node:fs";
import { ServiceError } from "../../core/index.ts";
import { asynchronousHostCalls, type HostCalls } from "./host-calls.ts";

export interface SandboxRoot {
  /** As seen inside the sandbox: /workspace, /tmp or a volume mount path. */
  sandboxPath: string;
  /** The host directory bound there. */
  hostPath: string;
}

export interface ResolvedPath {
  /** Canonical sandbox path (symlinks resolved). */
  sandboxPath: string;
  root: SandboxRoot;
  /** Components below the root; empty for the root itself. */
  components: string[];
}

const maximumSymlinkHops = 40;

export const outsideSandbox = (path: string) =>
  new ServiceError("path_outside_sandbox", `Path is outside the sandbox: ${path}`, { details: { path } });

/** The root holding a sandbox path (the deepest one, so a volume inside /workspace wins). */
export function locate(roots: SandboxRoot[], sandboxPath: string): ResolvedPath | null {
  let best: SandboxRoot | null = null;
  for (const root of roots) {
    const inside = sandboxPath === root.sandboxPath || sandboxPath.startsWith(`${root.sandboxPath}/`);
    if (inside && (best === null || root.sandboxPath.length > best.sandboxPath.length)) best = root;
  }
  if (best === null) return null;
  const rest = sandboxPath.slice(best.sandboxPath.length);
  return { sandboxPath, root: best, components: rest.split("/").filter((part) => part !== "") };
}

export const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * Runs `action` on the location's host path as `/proc/self/fd/<parent>/<name>`, the parent opened
 * from the root one component at a time without following a symlink.
 */
async function atLocation<T>(
  calls: HostCalls,
  location: ResolvedPath,
  action: (hostPath: string) => Promise<T>,
): Promise<T> {
  const { components } = location;
  if (components.length === 0) return action(location.root.hostPath);
  let directory = await calls.open(location.root.hostPath, directoryFlags);
  try {
    for (const component of components.slice(0, -1)) {
      const next = await calls.open(`/proc/self/fd/${directory.fd}/${component}`, directoryFlags);
      await directory.close();
      directory = next;
    }
    return await action(`/proc/self/fd/${directory.fd}/${components.at(-1)}`);
  } finally {
    await directory.close();
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * The host errors a lookup meets when a concurrent exec changes the path under it, as the client
 * errors they are; anything else stays a runtime failure. A component checked as a directory and
 * swapped for a link since shows as ELOOP when its parent walk reaches it (EMLINK on some
 * kernels), or as a name grown past PATH_MAX.
 */
function lookupError(error: unknown, path: string): unknown {
  switch (errorCode(error)) {
    case "ELOOP":
    case "EMLINK":
      return outsideSandbox(path);
    case "ENAMETOOLONG":
      return new ServiceError("validation_error", `Path is too long: ${path}`);
    default:
      return error;
  }
}

/** Splits an absolute sandbox path; refuses relative paths, `..` and NUL bytes. */
function checkedComponents(path: string): string[] {
  if (typeof path !== "string" || !path.startsWith("/") || path.includes("\0")) {
    throw new ServiceError("validation_error", "Sandbox paths must be absolute", { details: { path } });
  }
  const components = path.split("/").filter((part) => part !== "" && part !== ".");
  if (components.includes("..")) throw outsideSandbox(path);
  return components;
}

/**
 * Resolves symlinks (the last component too when followFinal) and checks the result is inside a
 * root, with `calls` (host-calls.ts).
 */
export async function resolveSandboxPath(
  roots: SandboxRoot[],
  path: string,
  followFinal = true,
  calls: HostCalls = asynchronousHostCalls,
): Promise<ResolvedPath> {
  let pending = checkedComponents(path);
  let resolved: string[] = [];
  let hops = 0;
  let missing = false;
  while (pending.length > 0) {
    const component = pending.shift()!;
    if (component === "" || component === ".") continue;
    if (component === "..") {
      resolved.pop();
      continue;
    }
    resolved.push(component);
    // Below a missing component nothing exists; the rest is taken literally.
    if (missing) continue;
    const location = locate(roots, `/${resolved.join("/")}`);
    // Ancestors of the roots ("/", "/mnt") are not ours to inspect; only the end result counts.
    if (location === null) continue;
    const isFinal = pending.length === 0;
    let isLink: boolean;
    try {
      isLink = (await atLocation(calls, location, calls.lstat)).isSymbolicLink();
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw lookupError(error, path);
      missing = true;
      continue;
    }
    if (!isLink || (isFinal && !followFinal)) continue;
    hops += 1;
    if (hops > maximumSymlinkHops) {
      throw new ServiceError("validation_error", `Too many levels of symbolic links: ${path}`);
    }
    let target: string;
    try {
      target = await atLocation(calls, location, calls.readlink);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "EINVAL" && code !== "ENOENT" && code !== "ENOTDIR") throw lookupError(error, path);
      // No longer a link, or gone, since the lstat (a concurrent exec swapped it): look at the
      // component again. The retry counts as a hop, so a swap loop cannot hold the lookup forever.
      resolved.pop();
      pending.unshift(component);
      continue;
    }
    resolved.pop();
    if (target.startsWith("/")) resolved = [];
    pending = [...target.split("/"), ...pending];
  }
  const result = locate(roots, `/${resolved.join("/")}`);
  if (result === null) throw outsideSandbox(path);
  return result;
}
