/**
 * One formatted disk of the most common size (the small size's default), made in the background
 * once the runtime has created a sandbox, so the next create of that size only mounts it:
 * preallocating and formatting is most of a create's time. Taking it starts the next one. A spare
 * is never adopted after a restart: the directory is emptied at start and at close.
 */
import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../core/ports/logger.ts";
import { formatDisk, type HostRunner } from "../../lib/sandbox-isolation/index.ts";

export async function createSpareDisks(options: {
  directory: string;
  bytes: number;
  logger: Logger;
  runner?: HostRunner;
}) {
  const { directory, bytes, logger, runner } = options;
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { mode: 0o700 });
  let spare: Promise<string | null> | null = null;
  let closed = false;

  return {
    /** The path of a formatted image of `bytes`, to rename into place; null when there is none. */
    async take(wanted: number): Promise<string | null> {
      if (bytes === 0 || closed) return null;
      const taken = wanted === bytes ? spare : null;
      if (taken !== null || spare === null) {
        const image = join(directory, `${randomUUID()}.img`);
        spare = formatDisk(image, bytes, runner).then(
          () => image,
          async (error: unknown) => {
            logger.warn({ error: String(error) }, "could not make a spare sandbox disk");
            await rm(image, { force: true });
            return null;
          },
        );
      }
      return taken === null ? null : await taken;
    },

    async close(): Promise<void> {
      closed = true;
      await spare;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
