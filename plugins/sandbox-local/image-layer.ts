/**
 * A custom image on the local runtime (docs/sandboxes.md#images): the layer the builder made
 * (plugins/image-builder-local) is laid over the base read-only under /opt/cairn/image, and every
 * command of the session finds it through its environment: Node modules on NODE_PATH, Python
 * packages on PYTHONPATH, the unpacked .debs' programs and libraries on PATH and LD_LIBRARY_PATH.
 * A sandbox without an image has no /opt at all.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { sandboxEnvironment } from "./bubblewrap-arguments.ts";

export const imageRoot = "/opt/cairn/image";

/** The layer's parts that exist, each with where it appears in the sandbox. */
export function imageLayerMounts(layerPath: string): Array<{ hostPath: string; mountPath: string }> {
  const parts: Array<[string, string]> = [
    ["npm/node_modules", "node_modules"],
    ["python", "python"],
    ["apt", "apt"],
  ];
  return parts
    .filter(([source]) => existsSync(join(layerPath, source)))
    .map(([source, target]) => ({ hostPath: join(layerPath, source), mountPath: `${imageRoot}/${target}` }));
}

/** The environment of a session's commands when it runs a custom image. */
export function imageEnvironment(): Record<string, string> {
  const apt = `${imageRoot}/apt`;
  return {
    ...sandboxEnvironment,
    PATH: `${apt}/usr/local/bin:${apt}/usr/bin:${apt}/bin:${sandboxEnvironment.PATH}`,
    NODE_PATH: `${imageRoot}/node_modules`,
    PYTHONPATH: `${imageRoot}/python`,
    LD_LIBRARY_PATH: `${apt}/usr/lib/x86_64-linux-gnu:${apt}/usr/lib/aarch64-linux-gnu:${apt}/usr/lib:${apt}/lib`,
  };
}
