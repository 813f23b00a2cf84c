/** The host's system folders every jail sees, read-only: /usr and the /bin, /lib, /sbin links. */
import { lstatSync, readlinkSync } from "node:fs";

/** bwrap arguments that depend only on the host (computed once per runtime). */
export function hostSystemArguments(): string[] {
  const argumentsList = ["--ro-bind", "/usr", "/usr"];
  // On merged-/usr systems these are symlinks into /usr; elsewhere real directories.
  for (const name of ["bin", "sbin", "lib", "lib32", "lib64", "libx32"]) {
    const hostPath = `/${name}`;
    try {
      const stats = lstatSync(hostPath);
      if (stats.isSymbolicLink()) argumentsList.push("--symlink", readlinkSync(hostPath), hostPath);
      else if (stats.isDirectory()) argumentsList.push("--ro-bind", hostPath, hostPath);
    } catch {
      // Not present on this host.
    }
  }
  return argumentsList;
}
