/**
 * Sandbox path resolution for the file operations (CONTRACT §2.7). Clients name files relative
 * to /workspace or by absolute path; this turns either into one canonical absolute path and
 * refuses anything that lands outside the sandbox roots. It works on the text only: symlinks and
 * hard links are the runtime's to refuse, since only it can see them.
 */

import { ServiceError } from "../errors.ts";

export const workspaceRoot = "/workspace";

// Inputs that name the workspace itself, as the contract lists them (plus trailing-slash forms).
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

/**
 * Resolves a client path to the canonical sandbox path, or throws `path_outside_sandbox`.
 * `field` names the request field in validation details (`path` unless told).
 */
export function resolveSandboxPath(input: string, roots: string[], field = "path"): string {
  if (input.length === 0 || input.includes("\0")) {
    throw new ServiceError("validation_error", "Invalid request", {
      details: [
        {
          type: "value_error",
          loc: ["body", field],
          msg: input.length === 0 ? "path must not be empty" : "path must not contain NUL bytes",
        },
      ],
    });
  }
  if (workspaceAliases.has(input)) return workspaceRoot;
  const absolute = input.startsWith("/") ? input : `${workspaceRoot}/${input}`;
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
