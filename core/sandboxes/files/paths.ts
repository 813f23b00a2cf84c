/**
 * Sandbox path resolution for the file operations (docs/sandboxes.md#paths). Clients name files
 * relative to /workspace or by absolute path; this turns either into one canonical absolute path
 * and refuses anything that lands outside the sandbox roots. It works on the text only: symlinks
 * and hard links are the runtime's to refuse, since only it can see them.
 */

import { ServiceError } from "../../errors.ts";

export const workspaceRoot = "/workspace";

// Inputs that name the workspace itself, as docs/api.md#files lists them (plus trailing-slash
// forms).
const workspaceAliases = new Set(["/", ".", "./", "workspace", "workspace/", "/workspace", "/workspace/"]);

/** Collapses duplicate slashes and `.` / `..` segments of an absolute path; `..` stops at `/`. */
export function normalizeAbsolutePath(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

export function isWithinRoot(path: string, root: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

// Linux's limits (NAME_MAX, PATH_MAX less the NUL): past them the host answers ENAMETOOLONG,
// which is the caller's error, so it is refused here before any runtime is asked.
export const maximumComponentBytes = 255;
export const maximumPathBytes = 4095;

const encoder = new TextEncoder();

/** Why a client path cannot name anything, or null when its text is acceptable. */
function pathTextProblem(input: string): string | null {
  if (input.length === 0) return "path must not be empty";
  if (input.includes("\0")) return "path must not contain NUL bytes";
  if (encoder.encode(input).length > maximumPathBytes) {
    return `path must be at most ${maximumPathBytes} bytes (UTF-8)`;
  }
  for (const component of input.split("/")) {
    if (encoder.encode(component).length > maximumComponentBytes) {
      return `each path component (between slashes) must be at most ${maximumComponentBytes} bytes (UTF-8)`;
    }
  }
  return null;
}

/**
 * Resolves a client path to the canonical sandbox path, or throws `path_outside_sandbox`.
 * `field` names the input field in validation details (`path` unless told).
 */
export function resolveSandboxPath(input: string, roots: string[], field = "path"): string {
  const problem = pathTextProblem(input);
  if (problem !== null) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [{ type: "value_error", loc: [field], msg: problem }],
    });
  }
  if (workspaceAliases.has(input)) return workspaceRoot;
  // A relative path starting workspace/ names the file under /workspace (the counterpart's
  // spelling, CONTRACT §2.7: workspace/app.py is /workspace/app.py), not /workspace/workspace/….
  const relative = input.replace(/^(\.\/)?workspace\//, "");
  const absolute = input.startsWith("/") ? input : `${workspaceRoot}/${relative}`;
  const resolved = normalizeAbsolutePath(absolute);
  // A root of "/" would make the whole machine a root; ignore it rather than trust it.
  const canonicalRoots = roots.map(normalizeAbsolutePath).filter((root) => root !== "/");
  if (!canonicalRoots.some((root) => isWithinRoot(resolved, root))) {
    throw new ServiceError(
      "path_outside_sandbox",
      `${JSON.stringify(input)} resolves to ${resolved}, outside the sandbox (${canonicalRoots.join(", ")})`,
    );
  }
  return resolved;
}
