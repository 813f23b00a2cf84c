/**
 * Snapshots on the real local runtime through REST (docs/sandboxes.md#snapshots): a restored
 * sandbox has the snapshot's files byte for byte while the source keeps changing, owned by its own
 * user; deleting a snapshot needs an admin key (a member key is 403 insufficient_role); the
 * per-account cap is 429 snapshot_limit_reached; another account's snapshot is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
  type SessionOut,
  type SnapshotOut,
} from "./sandbox-client.ts";

// Random bytes, a sparse hole, a symlink and an executable, each summed with sha256sum.
const writeFiles = [
  "head -c 3000000 /dev/urandom > big.bin",
  "mkdir -p src && printf 'print(1)\\n' > src/app.py && chmod 755 src/app.py",
  "ln -s src/app.py link && truncate -s 50M sparse.img && echo tmpfile > /tmp/keep.txt",
].join(" && ");
const sums = "sha256sum big.bin src/app.py sparse.img /tmp/keep.txt && stat -c '%a %F' src/app.py link";

describe.each(storageTargets)("snapshots in local sandboxes on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      environment: { SVC_MAX_SNAPSHOTS_PER_ACCOUNT: "2", SVC_MAX_CONCURRENT_SANDBOXES: "3" },
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("restores the files byte-exact into a new sandbox while the source keeps changing", async () => {
    const source = await client.createActive({ label: "source" });
    expect((await client.exec(source.id, writeFiles)).body).toMatchObject({ exit_code: 0 });
    const before = await client.exec(source.id, sums);
    expect(before.body.exit_code).toBe(0);

    // The source writes all along while the snapshot is taken.
    const writing = client.exec(source.id, "for i in $(seq 1 200); do echo $i >> busy.log; done; echo done");
    const taken = await client.sendJson<SnapshotOut>(`/v1/sandboxes/${source.id}/snapshots`, {
      method: "POST",
      json: { label: "first" },
    });
    expect(taken.status).toBe(201);
    expect(taken.body).toMatchObject({ session_id: source.id, label: "first", status: "ready" });
    expect(taken.body.size_bytes).toBeGreaterThan(3_000_000);
    expect((await writing).body.stdout).toBe("done\n");
    // Counted in the account's storage.
    expect((await client.sendJson("/v1/usage")).body).toMatchObject({
      snapshots: 1,
      snapshots_limit: 2,
      snapshot_storage_bytes: taken.body.size_bytes,
    });

    // The source changes after the snapshot: none of it may reach the restore.
    await client.exec(
      source.id,
      "head -c 1000 /dev/urandom > big.bin && rm src/app.py && echo new > added.txt",
    );
    const restored = await client.sendJson<SessionOut>(`/v1/snapshots/${taken.body.id}/restore`, {
      method: "POST",
      json: { label: "copy" },
    });
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({ status: "active", label: "copy" });
    const copy = restored.body.id;
    expect(copy).not.toBe(source.id);

    const after = await client.exec(copy, sums);
    expect(after.body).toMatchObject({ exit_code: 0, stdout: before.body.stdout });
    expect((await client.exec(copy, "test -e added.txt || echo absent")).body.stdout).toBe("absent\n");
    // The restored files are the new sandbox's own: it can write them.
    expect(
      (await client.exec(copy, "echo more >> big.bin && id -u && stat -c %u big.bin")).body,
    ).toMatchObject({
      exit_code: 0,
      stdout: "1000\n1000\n",
    });
    // And the snapshot is unchanged by that: a second restore still has the first bytes.
    const listed = await client.sendJson<SnapshotOut[]>(`/v1/sandboxes/${source.id}/snapshots`);
    expect(listed.body.map((snapshot) => snapshot.id)).toEqual([taken.body.id]);
    expect((await client.sendJson<SnapshotOut>(`/v1/snapshots/${taken.body.id}`)).body.id).toBe(
      taken.body.id,
    );

    for (const id of [source.id, copy]) expect((await client.destroy(id)).status).toBe(204);
  });

  it("lets only an admin key delete a snapshot, caps them per account, and hides them from others", async () => {
    // An account of its own: the test above left one snapshot.
    client = await createSandboxClient(test);
    const session = await client.createActive({});
    const first = await client.sendJson<SnapshotOut>(`/v1/sandboxes/${session.id}/snapshots`, {
      method: "POST",
      json: {},
    });
    expect(first.status).toBe(201);
    const second = await client.sendJson<SnapshotOut>(`/v1/sandboxes/${session.id}/snapshots`, {
      method: "POST",
    });
    expect(second.status).toBe(201);
    const third = await client.sendJson(`/v1/sandboxes/${session.id}/snapshots`, { method: "POST" });
    expect([third.status, errorCode(third.body)]).toEqual([429, "snapshot_limit_reached"]);

    const member = await test.request("/v1/api-keys", {
      method: "POST",
      json: { name: "agent", role: "member" },
      credential: client.token,
    });
    const memberKey = (await member.json()) as { key: string; role: string };
    expect(memberKey.role).toBe("member");
    const refused = await test.request(`/v1/snapshots/${first.body.id}`, {
      method: "DELETE",
      credential: memberKey.key,
    });
    expect([refused.status, errorCode(await refused.json())]).toEqual([403, "insufficient_role"]);
    // A member may still take and read them.
    const read = await test.request(`/v1/snapshots/${first.body.id}`, { credential: memberKey.key });
    expect(read.status).toBe(200);

    const stranger = await createSandboxClient(test);
    const hidden = await stranger.sendJson(`/v1/snapshots/${first.body.id}`);
    expect([hidden.status, errorCode(hidden.body)]).toEqual([404, "not_found"]);
    const hiddenRestore = await stranger.sendJson(`/v1/snapshots/${first.body.id}/restore`, {
      method: "POST",
    });
    expect(hiddenRestore.status).toBe(404);

    expect((await client.send(`/v1/snapshots/${first.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await client.sendJson(`/v1/snapshots/${first.body.id}`)).status).toBe(404);
    // The slot is free again.
    const again = await client.sendJson(`/v1/sandboxes/${session.id}/snapshots`, { method: "POST" });
    expect(again.status).toBe(201);
    const keys = (await (await test.request("/v1/api-keys", { credential: client.token })).json()) as Array<{
      role: string;
    }>;
    expect(keys.map((key) => key.role).sort()).toEqual(["admin", "member"]);
    expect((await client.destroy(session.id)).status).toBe(204);
  });
});
