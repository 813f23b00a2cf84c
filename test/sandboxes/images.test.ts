/**
 * Custom images over REST (docs/api.md#images) on both databases, with a controlled builder:
 * every field of create, get and list; the exact-pin rules (a 422 whose loc names the list and
 * index); bases and what each supports; the per-account limit and the deployment's builds in
 * flight with their details; reuse of the same spec within 24 hours (same digest, no build);
 * failures with their reason and the last 4 KiB of the log; tenancy; delete; image_id on sandbox
 * create; a build left `building` by a stopped server built at the next start; the
 * image_build_ops bucket; and SVC_IMAGE_BUILDER_ENABLED=false.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxRuntime, SandboxSpec } from "../../core/index.ts";
import { completedBuild, createFakeImageBuilder } from "../doubles/fake-image-builder.ts";
import { createTestDatabase, storageTargets, type TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  errorDetails,
  type SandboxClient,
} from "./sandbox-client.ts";

interface ImageOut {
  id: string;
  label: string | null;
  base: string;
  python_packages: string[];
  apt_packages: string[];
  npm_packages: string[];
  status: string;
  digest: string | null;
  registry_ref: string | null;
  failure_reason: string | null;
  build_log_tail: string | null;
  created_at: string;
  completed_at: string | null;
}

const createImage = (client: SandboxClient, json: Record<string, unknown>) =>
  client.sendJson<{ id: string; label: string | null; status: string; created_at: string }>("/v1/images", {
    method: "POST",
    json,
  });
const getImage = (client: SandboxClient, id: string) => client.sendJson<ImageOut>(`/v1/images/${id}`);

async function waitForStatus(client: SandboxClient, id: string, statuses: string[]): Promise<ImageOut> {
  for (;;) {
    const image = await getImage(client, id);
    if (statuses.includes(image.body.status)) return image.body;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A runtime that records create specs and runs nothing (the specs are what this suite checks). */
function recordingRuntime(specs: SandboxSpec[]): SandboxRuntime {
  return {
    name: "local",
    async create(spec) {
      specs.push(spec);
      return { podName: null, note: "recorded" };
    },
    async destroy() {},
    async list() {
      return [];
    },
    async exec() {
      return { exitCode: 0, stdout: "", stderr: "", timedOut: false, truncated: false, durationMs: 0 };
    },
    files() {
      throw new Error("no files in the recording runtime");
    },
    async close() {},
  };
}

describe.each(storageTargets)("images on %s", (target) => {
  let test: TestPlatform;
  let client: SandboxClient;
  let other: SandboxClient;
  let current = Date.parse("2026-11-02T10:00:00Z");
  const builds = createFakeImageBuilder();
  const specs: SandboxSpec[] = [];

  beforeAll(async () => {
    test = await createSandboxPlatform(target, {
      clock: { now: () => new Date(current) },
      environment: {
        SVC_MAX_IMAGES_PER_ACCOUNT: "4",
        SVC_GLOBAL_MAX_IMAGE_BUILDS: "2",
        SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: "100000",
      },
      imageBuilder: builds.builder,
      sandboxRuntime: recordingRuntime(specs),
    });
    client = await createSandboxClient(test);
    other = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  const deleteAll = async (owner: SandboxClient) => {
    for (const image of (await owner.sendJson<ImageOut[]>("/v1/images")).body) {
      await owner.send(`/v1/images/${image.id}`, { method: "DELETE" });
    }
  };

  it("queues a build (202), shows it building, then completed with its digest, in get and list", async () => {
    const created = await createImage(client, {
      label: "tools",
      npm_packages: ["is-number==7.0.0", "@types/node==22.10.2"],
      python_packages: ["requests==2.32.3"],
      apt_packages: ["jq==1.6-2.1+deb12u1"],
    });
    expect(created.status).toBe(202);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      label: "tools",
      status: "queued",
      created_at: new Date(current).toISOString(),
    });
    const build = await builds.next(created.body.id);
    expect(build.spec).toMatchObject({
      id: created.body.id,
      accountId: client.accountId,
      base: "default",
      npmPackages: ["is-number==7.0.0", "@types/node==22.10.2"],
      pythonPackages: ["requests==2.32.3"],
      aptPackages: ["jq==1.6-2.1+deb12u1"],
      specHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await getImage(client, created.body.id)).body.status).toBe("building");
    build.settle(completedBuild(build.spec));
    const image = await waitForStatus(client, created.body.id, ["completed"]);
    expect(image).toEqual({
      id: created.body.id,
      label: "tools",
      base: "default",
      python_packages: ["requests==2.32.3"],
      apt_packages: ["jq==1.6-2.1+deb12u1"],
      npm_packages: ["is-number==7.0.0", "@types/node==22.10.2"],
      status: "completed",
      digest: `sha256:${build.spec.specHash}`,
      registry_ref: null,
      failure_reason: null,
      build_log_tail: "built\n",
      created_at: new Date(current).toISOString(),
      completed_at: new Date(current).toISOString(),
    });
    const listed = await client.sendJson<ImageOut[]>("/v1/images");
    expect(listed.body).toEqual([image]);
    await deleteAll(client);
  });

  it.each([
    ["npm_packages", ["is-number==7.0.0", "is-number"], 1],
    ["npm_packages", ["is-number==^7.0.0"], 0],
    ["npm_packages", ["is-number==7.x"], 0],
    ["npm_packages", ["is-number@7.0.0"], 0],
    ["npm_packages", ["@scope/x==latest"], 0],
    ["python_packages", ["requests>=2.0"], 0],
    ["python_packages", ["six==1.16.0", "requests==2.*"], 1],
    ["python_packages", ["requests==2.32.3,<3"], 0],
    ["apt_packages", ["jq"], 0],
    ["apt_packages", ["jq==1.6 ; rm -rf /"], 0],
  ])(
    "refuses the unpinned or ranged %s entry %j with a 422 naming its index",
    async (field, entries, index) => {
      const response = await createImage(client, { [field]: entries });
      expect(response.status).toBe(422);
      expect(errorCode(response.body)).toBe("validation_error");
      const [detail] = errorDetails(response.body) as Array<{ loc: string[]; msg: string }>;
      expect(detail.loc).toEqual(["body", field, String(index)]);
      expect(detail.msg).toMatch(/package entry must/);
      // The submitted value is never echoed back.
      expect(JSON.stringify(response.body)).not.toContain(entries[index]);
    },
  );

  it("refuses an unknown base, a package kind the base cannot install, duplicates and oversized lists", async () => {
    const unknown = await createImage(client, { base: "ubuntu" });
    expect([unknown.status, (errorDetails(unknown.body) as Array<{ loc: string[] }>)[0].loc]).toEqual([
      422,
      ["body", "base"],
    ]);
    // The counterpart's names: its default and node bases are Cairn's default; the others are
    // refused with the bases on offer.
    const go = await createImage(client, { base: "boxxkite-go" });
    expect([go.status, (errorDetails(go.body) as Array<{ msg: string }>)[0].msg]).toEqual([
      422,
      "Must be one of the offered bases: default, minimal (boxxkite-default is default, boxxkite-node is default)",
    ]);
    const minimalNpm = await createImage(client, { base: "minimal", npm_packages: ["is-number==7.0.0"] });
    expect(minimalNpm.status).toBe(422);
    expect(errorDetails(minimalNpm.body)).toEqual([
      {
        type: "unsupported_package_kind",
        loc: ["body", "npm_packages"],
        msg: "The minimal base cannot install npm packages",
      },
    ]);
    const minimalPython = await createImage(client, { base: "minimal", python_packages: ["six==1.16.0"] });
    expect(minimalPython.status).toBe(422);
    const duplicate = await createImage(client, { npm_packages: ["is-number==7.0.0", "Is-Number==6.0.0"] });
    expect((errorDetails(duplicate.body) as Array<{ loc: string[] }>)[0].loc).toEqual([
      "body",
      "npm_packages",
      "1",
    ]);
    const tooMany = await createImage(client, {
      npm_packages: Array.from({ length: 101 }, (_, index) => `p${index}==1.0.0`),
    });
    expect(tooMany.status).toBe(422);
    const tooLong = await createImage(client, { npm_packages: [`${"a".repeat(195)}==1.0.0`] });
    expect(tooLong.status).toBe(422);
    expect((await createImage(client, { label: "x".repeat(201) })).status).toBe(422);
    expect((await client.sendJson<ImageOut[]>("/v1/images")).body).toEqual([]);
  });

  it("builds the minimal base's apt packages", async () => {
    const created = await createImage(client, { base: "minimal", apt_packages: ["jq==1.6-2.1+deb12u1"] });
    expect(created.status).toBe(202);
    const build = await builds.next(created.body.id);
    expect(build.spec.base).toBe("minimal");
    build.settle(completedBuild(build.spec));
    await waitForStatus(client, created.body.id, ["completed"]);
    await deleteAll(client);
  });

  it("takes the counterpart's boxxkite-default and boxxkite-node as the default base", async () => {
    for (const base of ["boxxkite-default", "boxxkite-node"]) {
      const created = await createImage(client, { base, npm_packages: [`${base}==1.0.0`] });
      expect(created.status).toBe(202);
      const build = await builds.next(created.body.id);
      expect(build.spec.base).toBe("default");
      build.settle(completedBuild(build.spec));
      expect(await waitForStatus(client, created.body.id, ["completed"])).toMatchObject({ base: "default" });
    }
    await deleteAll(client);
  });

  it("answers the same spec within 24 hours completed at once with the same digest, and builds again after", async () => {
    const first = await createImage(client, { npm_packages: ["a==1.0.0", "b==2.0.0"] });
    const build = await builds.next(first.body.id);
    build.settle(completedBuild(build.spec));
    const built = await waitForStatus(client, first.body.id, ["completed"]);
    const startedBefore = builds.started.length;

    current += 23 * 3600_000;
    const reused = await createImage(client, { label: "again", npm_packages: ["b==2.0.0", "a==1.0.0"] });
    expect(reused.status).toBe(202);
    expect(reused.body.status).toBe("completed");
    expect(reused.body.id).not.toBe(first.body.id);
    const reusedImage = (await getImage(client, reused.body.id)).body;
    expect(reusedImage).toMatchObject({
      status: "completed",
      digest: built.digest,
      label: "again",
      created_at: new Date(current).toISOString(),
      completed_at: built.completed_at,
    });
    expect(reusedImage.build_log_tail).toContain(first.body.id);
    expect(builds.started.length).toBe(startedBefore);

    // Another account's identical spec is its own build.
    const foreign = await createImage(other, { npm_packages: ["a==1.0.0", "b==2.0.0"] });
    expect(foreign.body.status).toBe("queued");
    (await builds.next(foreign.body.id)).settle(completedBuild(build.spec));
    await waitForStatus(other, foreign.body.id, ["completed"]);

    current += 2 * 3600_000;
    const later = await createImage(client, { npm_packages: ["a==1.0.0", "b==2.0.0"] });
    expect(later.body.status).toBe("queued");
    (await builds.next(later.body.id)).settle(completedBuild(build.spec));
    await waitForStatus(client, later.body.id, ["completed"]);
    await deleteAll(client);
    await deleteAll(other);
  });

  it("reports a failed build's reason and the last 4 KiB of its log", async () => {
    const created = await createImage(client, { npm_packages: ["is-number==99.99.99"] });
    const build = await builds.next(created.body.id);
    const log = `${"x".repeat(10_000)}\nnpm error notarget No matching version found for is-number@99.99.99\n`;
    build.settle({ status: "failed", reason: "The npm step failed (exit code 1)", log });
    const image = await waitForStatus(client, created.body.id, ["failed"]);
    expect(image).toMatchObject({
      status: "failed",
      digest: null,
      failure_reason: "The npm step failed (exit code 1)",
      completed_at: new Date(current).toISOString(),
    });
    expect(new TextEncoder().encode(image.build_log_tail ?? "").length).toBe(4096);
    expect(log.endsWith(image.build_log_tail ?? "-")).toBe(true);
    // A failed build is not reused: the same spec builds again.
    const again = await createImage(client, { npm_packages: ["is-number==99.99.99"] });
    expect(again.body.status).toBe("queued");
    (await builds.next(again.body.id)).settle({ status: "failed", reason: "again", log: "" });
    await waitForStatus(client, again.body.id, ["failed"]);
    await deleteAll(client);
  });

  it("refuses a create past the account's images with image_build_limit_reached {limit, active}", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 4; index += 1) {
      const created = await createImage(client, { npm_packages: [`p${index}==1.0.0`] });
      ids.push(created.body.id);
      const build = await builds.next(created.body.id);
      build.settle(completedBuild(build.spec));
      await waitForStatus(client, created.body.id, ["completed"]);
    }
    const refused = await createImage(client, { npm_packages: ["p9==1.0.0"] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "image_build_limit_reached", retryable: false, details: { limit: 4, active: 4 } },
    });
    expect((await client.sendJson<ImageOut[]>("/v1/images")).body).toHaveLength(4);
    await client.send(`/v1/images/${ids[0]}`, { method: "DELETE" });
    const allowed = await createImage(client, { npm_packages: ["p9==1.0.0"] });
    expect(allowed.status).toBe(202);
    (await builds.next(allowed.body.id)).settle({ status: "failed", reason: "x", log: "" });
    await waitForStatus(client, allowed.body.id, ["failed"]);
    await deleteAll(client);
  });

  it("refuses a build past the deployment's builds in flight with global_build_capacity_reached {limit, in_flight}", async () => {
    const first = await createImage(client, { npm_packages: ["g1==1.0.0"] });
    const second = await createImage(other, { npm_packages: ["g2==1.0.0"] });
    const firstBuild = await builds.next(first.body.id);
    const refused = await createImage(client, { npm_packages: ["g3==1.0.0"] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "global_build_capacity_reached", retryable: true, details: { limit: 2, in_flight: 2 } },
    });
    firstBuild.settle(completedBuild(firstBuild.spec));
    await waitForStatus(client, first.body.id, ["completed"]);
    const accepted = await createImage(client, { npm_packages: ["g3==1.0.0"] });
    expect(accepted.status).toBe(202);
    for (const [owner, id] of [
      [other, second.body.id],
      [client, accepted.body.id],
    ] as const) {
      const build = await builds.next(id);
      build.settle(completedBuild(build.spec));
      await waitForStatus(owner, id, ["completed"]);
    }
    await deleteAll(client);
    await deleteAll(other);
  });

  it("stops the build of an image deleted while it builds, freeing its slot", async () => {
    const created = await createImage(client, { npm_packages: ["d==1.0.0"] });
    const build = await builds.next(created.body.id);
    expect(build.signal.aborted).toBe(false);
    expect((await client.send(`/v1/images/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect(build.signal.aborted).toBe(true);
    await test.platform.imageBuilds.idle();
    expect((await getImage(client, created.body.id)).status).toBe(404);
  });

  it("keeps images to their account: another account's get and delete are 404 and its list is its own", async () => {
    const created = await createImage(client, { npm_packages: ["t==1.0.0"] });
    const build = await builds.next(created.body.id);
    build.settle(completedBuild(build.spec));
    await waitForStatus(client, created.body.id, ["completed"]);
    expect(errorCode((await getImage(other, created.body.id)).body)).toBe("not_found");
    const foreignDelete = await other.sendJson(`/v1/images/${created.body.id}`, { method: "DELETE" });
    expect([foreignDelete.status, errorCode(foreignDelete.body)]).toEqual([404, "not_found"]);
    expect((await other.sendJson<ImageOut[]>("/v1/images")).body).toEqual([]);
    const foreignSandbox = await other.create({ image_id: created.body.id });
    expect([foreignSandbox.status, errorCode(foreignSandbox.body)]).toEqual([404, "not_found"]);
    expect((await getImage(client, "not-a-uuid")).status).toBe(404);

    const deleted = await client.send(`/v1/images/${created.body.id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await getImage(client, created.body.id)).status).toBe(404);
    expect((await client.send(`/v1/images/${created.body.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("starts a sandbox from a completed image (the runtime gets its layer), and refuses unknown and unfinished ones", async () => {
    const unknown = await client.create({ image_id: crypto.randomUUID() });
    expect([unknown.status, errorCode(unknown.body)]).toEqual([404, "not_found"]);
    const created = await createImage(client, { npm_packages: ["s==1.0.0"] });
    const build = await builds.next(created.body.id);
    const queued = await client.create({ image_id: created.body.id });
    expect([queued.status, errorCode(queued.body)]).toEqual([404, "not_found"]);
    build.settle(completedBuild(build.spec));
    const image = await waitForStatus(client, created.body.id, ["completed"]);

    const session = await client.createActive({ image_id: created.body.id });
    expect(specs.at(-1)).toMatchObject({
      id: session.id,
      image: {
        id: created.body.id,
        base: "default",
        digest: image.digest,
        layerPath: `/layers/${build.spec.specHash}`,
        registryRef: null,
      },
    });
    const stored = await test.platform.storage.sandboxSessions.get(client.accountId, session.id);
    expect(stored?.imageId).toBe(created.body.id);
    // Deleting the image leaves the session as it is.
    expect((await client.send(`/v1/images/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await client.get(session.id)).body.status).toBe("active");
    expect((await client.exec(session.id, "true")).status).toBe(200);
    await client.destroy(session.id);
    const plain = await client.createActive();
    expect(specs.at(-1)?.image).toBeUndefined();
    await client.destroy(plain.id);
  });
});

describe.each(storageTargets)("image builds across a restart on %s", (target) => {
  it("builds at the next start an image a stopped server left building", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "cairn-images-restart-"));
    const database = target === "postgresql" ? await createTestDatabase() : undefined;
    const stalled = createFakeImageBuilder();
    const first = await createSandboxPlatform(target, {
      dataDir,
      databaseUrl: database?.url,
      imageBuilder: stalled.builder,
    });
    try {
      const client = await createSandboxClient(first);
      const created = await createImage(client, { npm_packages: ["r==1.0.0"] });
      await stalled.next(created.body.id);
      expect((await getImage(client, created.body.id)).body.status).toBe("building");
      // The server stops mid-build: the build is aborted and the image stays building.
      await first.platform.close();
      const second = await createSandboxPlatform(target, {
        dataDir,
        databaseUrl: database?.url,
        imageBuilder: createFakeImageBuilder(completedBuild).builder,
      });
      try {
        const response = await second.request(`/v1/images/${created.body.id}`, { credential: client.key });
        const image = (await response.json()) as ImageOut;
        await second.platform.imageBuilds.idle();
        const settled = (await (
          await second.request(`/v1/images/${created.body.id}`, { credential: client.key })
        ).json()) as ImageOut;
        expect(["queued", "building", "completed"]).toContain(image.status);
        expect(settled.status).toBe("completed");
      } finally {
        await second.close();
      }
    } finally {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe("images switched off (SVC_IMAGE_BUILDER_ENABLED=false)", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: { SVC_IMAGE_BUILDER_ENABLED: "false" },
      imageBuilder: createFakeImageBuilder(completedBuild).builder,
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("answers every image route 404 not_found and refuses image_id on create", async () => {
    for (const [method, path] of [
      ["POST", "/v1/images"],
      ["GET", "/v1/images"],
      ["GET", `/v1/images/${crypto.randomUUID()}`],
      ["DELETE", `/v1/images/${crypto.randomUUID()}`],
    ]) {
      const response = await client.sendJson(path, { method, json: method === "POST" ? {} : undefined });
      expect([method, path, response.status, errorCode(response.body)]).toEqual([
        method,
        path,
        404,
        "not_found",
      ]);
    }
    const created = await client.create({ image_id: crypto.randomUUID() });
    expect([created.status, errorCode(created.body)]).toEqual([404, "not_found"]);
    const openapi = (await (await test.request("/v1/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(openapi.paths).filter((path) => path.startsWith("/v1/images"))).toEqual([]);
  });
});

describe("the image_build_ops bucket", () => {
  let test: TestPlatform;
  let client: SandboxClient;
  beforeAll(async () => {
    test = await createSandboxPlatform("sqlite", {
      environment: { SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: "2" },
      imageBuilder: createFakeImageBuilder(completedBuild).builder,
    });
    client = await createSandboxClient(test);
  });
  afterAll(() => test.close());

  it("limits POST and DELETE together per account and leaves GET alone", async () => {
    const created = await createImage(client, { npm_packages: ["q==1.0.0"] });
    expect(created.status).toBe(202);
    expect(created.headers.get("x-ratelimit-limit")).toBe("2");
    expect((await client.send(`/v1/images/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    const refused = await createImage(client, { npm_packages: ["q==1.0.0"] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      error: { code: "rate_limited", details: { bucket: "image_build_ops", limit: 2 } },
    });
    expect((await client.sendJson("/v1/images")).status).toBe(200);
  });
});
