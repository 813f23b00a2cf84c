/**
 * Volumes over REST (docs/api.md#volumes) on both databases: create, get, list and delete, the
 * limit and its details, tenancy, `volume_mounts` on sandbox create (unknown, foreign and not
 * ready volumes, the mount-path rules), volume_in_use while an active session mounts one, the
 * volume_ops bucket, and SVC_VOLUMES_ENABLED=false.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxSessionRecord } from "../../core/index.ts";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

interface VolumeOut {
  id: string;
  label: string | null;
  size_gb: number;
  status: string;
  pvc_name: string | null;
  used_bytes: number | null;
  failure_reason: string | null;
  created_at: string;
}

const createVolume = (client: SandboxClient, json: Record<string, unknown>) =>
  client.sendJson<VolumeOut>("/v1/volumes", { method: "POST", json });

async function readyVolume(client: SandboxClient, json: Record<string, unknown> = { size_gb: 1 }) {
  const created = await createVolume(client, json);
  if (created.status !== 202)
    throw new Error(`volume create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** An active session row that mounts `volumeId`, as a create would leave it (no runtime involved). */
async function sessionMounting(test: TestPlatform, accountId: string, volumeId: string, expiresAt: Date) {
  const now = new Date();
  const session: SandboxSessionRecord = {
    id: crypto.randomUUID(),
    accountId,
    status: "active",
    label: null,
    size: "small",
    storageGb: null,
    runtime: "local",
    podName: null,
    connectNote: null,
    imageId: null,
    grants: {
      secretNames: [],
      mcpConnectionNames: [],
      volumeMounts: { [volumeId]: "/data" },
      egressHosts: [],
    },
    createdAt: new Date(now.getTime() - 60_000),
    expiresAt,
    destroyedAt: null,
    endedReason: null,
  };
  await test.platform.storage.sandboxSessions.reserve(accountId, [session], now, () => null);
  return session;
}

describe.each(storageTargets)("volumes on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      environment: { SVC_MAX_VOLUMES_PER_ACCOUNT: "3", SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "100000" },
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("creates a volume (202 queued) that is ready at once on the local runtime, and lists it", async () => {
    const created = await createVolume(client, { label: "datasets", size_gb: 2.5 });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      label: "datasets",
      status: "queued",
      created_at: expect.any(String),
    });
    const expected = {
      id: created.body.id,
      label: "datasets",
      size_gb: 2.5,
      status: "ready",
      pvc_name: null,
      // The local runtime measures its volume's file system: an empty one holds next to nothing.
      used_bytes: expect.any(Number),
      failure_reason: null,
      created_at: created.body.created_at,
    };
    const got = await client.sendJson<VolumeOut>(`/v1/volumes/${created.body.id}`);
    expect(got.body.used_bytes).toBeLessThan(1024 * 1024);
    expect([got.status, got.body]).toEqual([200, expected]);
    const second = await createVolume(client, { size_gb: 1 });
    const listed = await client.sendJson<VolumeOut[]>("/v1/volumes");
    expect(listed.status).toBe(200);
    expect(listed.body.map((volume) => volume.id)).toEqual([second.body.id, created.body.id]);
    expect(listed.body[1]).toEqual(expected);
    expect(listed.body[0]).toMatchObject({ label: null, size_gb: 1, status: "ready" });
    for (const volume of listed.body) {
      expect((await client.send(`/v1/volumes/${volume.id}`, { method: "DELETE" })).status).toBe(204);
    }
    expect((await client.sendJson("/v1/volumes")).body).toEqual([]);
  });

  it("refuses sizes outside (0, 1024], a missing size and a long label", async () => {
    for (const json of [{}, { size_gb: 0 }, { size_gb: -1 }, { size_gb: 1024.5 }, { size_gb: "1" }]) {
      const refused = await createVolume(client, json);
      expect([JSON.stringify(json), refused.status, errorCode(refused.body)]).toEqual([
        JSON.stringify(json),
        422,
        "validation_error",
      ]);
      expect(errorDetails(refused.body)).toEqual([expect.objectContaining({ loc: ["body", "size_gb"] })]);
    }
    const label = await createVolume(client, { size_gb: 1, label: "x".repeat(201) });
    expect([label.status, errorCode(label.body)]).toEqual([422, "validation_error"]);
    expect((await createVolume(client, { size_gb: 1024, label: "x".repeat(200) })).status).toBe(202);
    const [largest] = (await client.sendJson<VolumeOut[]>("/v1/volumes")).body;
    expect((await client.send(`/v1/volumes/${largest.id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("answers 429 volume_limit_reached with {limit, active} past the limit; a delete frees a slot", async () => {
    const owner = await createSandboxClient(test);
    const ids = [await readyVolume(owner), await readyVolume(owner), await readyVolume(owner)];
    const refused = await createVolume(owner, { size_gb: 1 });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "volume_limit_reached", retryable: false, details: { limit: 3, active: 3 } },
    });
    // Another account has its own limit.
    expect((await createVolume(await createSandboxClient(test), { size_gb: 1 })).status).toBe(202);
    expect((await owner.send(`/v1/volumes/${ids[0]}`, { method: "DELETE" })).status).toBe(204);
    expect((await createVolume(owner, { size_gb: 1 })).status).toBe(202);
  });

  it("gives the last slot to one of two racing creates", async () => {
    const racer = await createSandboxClient(test);
    await readyVolume(racer);
    await readyVolume(racer);
    const [left, right] = await Promise.all([
      createVolume(racer, { size_gb: 1 }),
      createVolume(racer, { size_gb: 1 }),
    ]);
    expect([left.status, right.status].sort()).toEqual([202, 429]);
    expect((await racer.sendJson<VolumeOut[]>("/v1/volumes")).body).toHaveLength(3);
  });

  it("keeps volumes to their account: another account's volume is 404 to get, delete and mount", async () => {
    const volumeId = await readyVolume(client);
    const stranger = await createSandboxClient(test);
    expect((await stranger.sendJson("/v1/volumes")).body).toEqual([]);
    for (const response of [
      await stranger.sendJson(`/v1/volumes/${volumeId}`),
      await stranger.sendJson(`/v1/volumes/${volumeId}`, { method: "DELETE" }),
      await stranger.create({ volume_mounts: { [volumeId]: "/data" } }),
    ]) {
      expect([response.status, errorCode(response.body)]).toEqual([404, "not_found"]);
    }
    expect((await stranger.usage()).body.total_sandboxes_created).toBe(0);
    expect((await client.sendJson<VolumeOut>(`/v1/volumes/${volumeId}`)).body.status).toBe("ready");
    for (const id of ["0f6f2c3e-1111-4222-8333-444455556666", "x".repeat(65), "not-a-uuid"]) {
      const missing = await client.sendJson(`/v1/volumes/${id}`);
      expect([id, missing.status, errorCode(missing.body)]).toEqual([id, 404, "not_found"]);
    }
    expect((await client.send(`/v1/volumes/${volumeId}`, { method: "DELETE" })).status).toBe(204);
  });

  it("checks volume_mounts on sandbox create before anything is created", async () => {
    const mounter = await createSandboxClient(test);
    const volumeId = await readyVolume(mounter);
    const otherId = await readyVolume(mounter);
    const unknown = await mounter.create({
      volume_mounts: { "0f6f2c3e-1111-4222-8333-444455556666": "/data" },
    });
    expect([unknown.status, errorCode(unknown.body)]).toEqual([404, "not_found"]);
    const badPaths = [
      "data",
      "/",
      "/workspace",
      "/workspace/data",
      "/tmp",
      "/tmp/cache",
      "/mnt",
      "/mnt/data",
      "/usr/local/data",
      "/etc",
      "/proc/x",
      "/data/../etc",
      "/data/./x",
      "//data",
      "/da ta",
    ];
    for (const path of badPaths) {
      const refused = await mounter.create({ volume_mounts: { [volumeId]: path } });
      expect([path, refused.status, errorCode(refused.body)]).toEqual([path, 422, "validation_error"]);
      expect(errorDetails(refused.body)).toEqual([
        expect.objectContaining({ loc: ["body", "volume_mounts", volumeId] }),
      ]);
    }
    const overlapping = await mounter.create({
      volume_mounts: { [volumeId]: "/data", [otherId]: "/data/inner" },
    });
    expect([overlapping.status, errorCode(overlapping.body)]).toEqual([422, "validation_error"]);
    const same = await mounter.create({ volume_mounts: { [volumeId]: "/data", [otherId]: "/data/" } });
    expect([same.status, errorCode(same.body)]).toEqual([422, "validation_error"]);
    // A volume that is not ready (being deleted here) cannot be mounted.
    await test.platform.storage.volumes.transition(mounter.accountId, otherId, ["ready"], "deleting");
    const deleting = await mounter.create({ volume_mounts: { [otherId]: "/other" } });
    expect([deleting.status, errorCode(deleting.body)]).toEqual([404, "not_found"]);
    expect((await mounter.list()).body).toEqual([]);
    expect((await mounter.usage()).body.total_sandboxes_created).toBe(0);
  });

  it("refuses to delete a volume an active session mounts (409 volume_in_use) and deletes it once the session ends", async () => {
    const owner = await createSandboxClient(test);
    const volumeId = await readyVolume(owner);
    const session = await sessionMounting(test, owner.accountId, volumeId, new Date(Date.now() + 600_000));
    const refused = await owner.sendJson(`/v1/volumes/${volumeId}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: "volume_in_use", retryable: false } });
    // Still there and still usable.
    expect((await owner.sendJson<VolumeOut>(`/v1/volumes/${volumeId}`)).body.status).toBe("ready");
    await test.platform.storage.sandboxSessions.end(session.id, "destroyed", new Date());
    expect((await owner.send(`/v1/volumes/${volumeId}`, { method: "DELETE" })).status).toBe(204);
    const again = await owner.sendJson(`/v1/volumes/${volumeId}`, { method: "DELETE" });
    expect([again.status, errorCode(again.body)]).toEqual([404, "not_found"]);
  });

  it("ends an expired session the reaper has not reached yet instead of refusing the delete", async () => {
    const owner = await createSandboxClient(test);
    const volumeId = await readyVolume(owner);
    const expiresAt = new Date(Date.now() - 1000);
    const session = await sessionMounting(test, owner.accountId, volumeId, expiresAt);
    expect((await owner.send(`/v1/volumes/${volumeId}`, { method: "DELETE" })).status).toBe(204);
    expect(await test.platform.storage.sandboxSessions.get(owner.accountId, session.id)).toMatchObject({
      status: "destroyed",
      endedReason: "expired",
      destroyedAt: expiresAt,
    });
  });
});

describe("volumes switched off, and the volume_ops bucket", () => {
  let test: TestPlatform;
  let off: TestPlatform;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: { SVC_VOLUME_RATE_LIMIT_PER_MINUTE: "3" },
    });
    off = await createSandboxPlatform("sqlite", { environment: { SVC_VOLUMES_ENABLED: "false" } });
  });
  afterAll(async () => {
    await test.close();
    await off.close();
  });

  it("takes a volume_ops token for each create and delete, never for reads", async () => {
    const client = await createSandboxClient(test);
    const first = await createVolume(client, { size_gb: 1 });
    expect(first.headers.get("X-RateLimit-Limit")).toBe("3");
    expect(first.headers.get("X-RateLimit-Remaining")).toBe("2");
    expect((await client.send(`/v1/volumes/${first.body.id}`, { method: "DELETE" })).status).toBe(204);
    for (let index = 0; index < 5; index++) expect((await client.send("/v1/volumes")).status).toBe(200);
    expect((await createVolume(client, { size_gb: 1 })).status).toBe(202);
    const limited = await createVolume(client, { size_gb: 1 });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      error: { code: "rate_limited", details: { bucket: "volume_ops", limit: 3 } },
    });
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // Another account has its own bucket.
    expect((await createVolume(await createSandboxClient(test), { size_gb: 1 })).status).toBe(202);
  });

  it("answers 404 not_found on every volume route when SVC_VOLUMES_ENABLED=false, and refuses volume_mounts", async () => {
    const client = await createSandboxClient(off);
    const id = "0f6f2c3e-1111-4222-8333-444455556666";
    for (const [path, method] of [
      ["/v1/volumes", "POST"],
      ["/v1/volumes", "GET"],
      [`/v1/volumes/${id}`, "GET"],
      [`/v1/volumes/${id}`, "DELETE"],
      ["/v1/volumes", "PUT"],
    ] as const) {
      const response = await client.sendJson(path, {
        method,
        json: method === "POST" ? { size_gb: 1 } : undefined,
      });
      expect([method, path, response.status, errorCode(response.body)]).toEqual([
        method,
        path,
        404,
        "not_found",
      ]);
    }
    // The served API document leaves the switched-off routes out; the other platform lists them.
    const paths = async (platform: TestPlatform) =>
      Object.keys(((await (await platform.request("/v1/openapi.json")).json()) as { paths: object }).paths);
    expect((await paths(off)).filter((path) => path.startsWith("/v1/volumes"))).toEqual([]);
    expect((await paths(test)).filter((path) => path.startsWith("/v1/volumes"))).toEqual([
      "/v1/volumes",
      "/v1/volumes/{volume_id}",
    ]);
    const mounted = await client.create({ volume_mounts: { [id]: "/data" } });
    expect([mounted.status, errorCode(mounted.body)]).toEqual([404, "not_found"]);
    await expect(
      off.call("create_sandbox_volume", { size_gb: 1 }, { credential: client.key }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
