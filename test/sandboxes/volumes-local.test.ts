/**
 * Volumes on the real local runtime through REST (docs/sandboxes.md#volumes): a file written to a
 * volume in one session is read in the next, at another mount path too, through exec and the
 * file routes; the volume cannot be deleted while a live session mounts it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

describe.each(storageTargets)("volumes in local sandboxes on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      environment: { SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "100000" },
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("keeps a file written in one session for the next one", async () => {
    const volume = await client.sendJson<{ id: string }>("/v1/volumes", {
      method: "POST",
      json: { size_gb: 0.1 },
    });
    expect(volume.status).toBe(202);
    const volumeId = volume.body.id;
    const first = await client.createActive({ volume_mounts: { [volumeId]: "/data" } });
    const written = await client.exec(
      first.id,
      "echo persisted > /data/notes.txt && ls -ld /data | cut -c1-4",
    );
    expect(written.body).toMatchObject({ exit_code: 0, stdout: "drwx\n" });
    const inUse = await client.sendJson(`/v1/volumes/${volumeId}`, { method: "DELETE" });
    expect([inUse.status, errorCode(inUse.body)]).toEqual([409, "volume_in_use"]);
    expect((await client.destroy(first.id)).status).toBe(204);

    const second = await client.createActive({ volume_mounts: { [volumeId]: "/srv/cache" } });
    expect((await client.exec(second.id, "cat /srv/cache/notes.txt")).body).toMatchObject({
      exit_code: 0,
      stdout: "persisted\n",
    });
    const viewed = await client.sendJson<{ content: string }>(`/v1/sandboxes/${second.id}/files/view`, {
      method: "POST",
      json: { path: "/srv/cache/notes.txt" },
    });
    expect([viewed.status, viewed.body.content]).toEqual([200, "persisted\n"]);
    // A session without the volume does not see it.
    const other = await client.createActive({});
    expect((await client.exec(other.id, "test -e /srv/cache/notes.txt || echo absent")).body.stdout).toBe(
      "absent\n",
    );
    expect((await client.destroy(other.id)).status).toBe(204);
    expect((await client.destroy(second.id)).status).toBe(204);
    expect((await client.send(`/v1/volumes/${volumeId}`, { method: "DELETE" })).status).toBe(204);
  });
});
