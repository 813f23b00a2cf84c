/**
 * A server that is not root cannot give a sandbox its own uid, disk or cgroups, so it starts none
 * (a weaker sandbox would run as the server's own uid with no disk quota) and says why, with the
 * fix, in one line. Run for real: the runtime in a Node process as `nobody`.
 */
import { execFile } from "node:child_process";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";

it("refuses to create sandboxes when the server is not root (503, with the fix), and holds none", async () => {
  // World-readable, so `nobody` can use it as its data directory's parent.
  const parent = await mkdtemp(join("/var/tmp", "cairn-not-root-"));
  await chmod(parent, 0o755);
  await chown(parent, 65534, 65534);
  const script = `
    const { createLocalSandboxRuntime } = await import(${JSON.stringify(join(import.meta.dirname, "create-local-sandbox-runtime.ts"))});
    const warnings = [];
    const logger = { info() {}, debug() {}, error() {}, warn(_, message) { warnings.push(message); }, child() { return logger; } };
    const runtime = createLocalSandboxRuntime({ dataDir: ${JSON.stringify(join(parent, "data"))}, logger });
    const outcome = { uid: process.getuid(), list: await runtime.list() };
    try {
      await runtime.create({ id: "a1", accountId: "b2", size: "small", storageGb: null, egressHosts: [], volumeMounts: [] });
      outcome.create = "created";
    } catch (error) {
      outcome.create = error.code;
      outcome.reason = error.message;
      outcome.remediation = error.remediation;
    }
    outcome.unavailable = await runtime.unavailable();
    await runtime.destroy("a1");
    await runtime.close();
    outcome.warnings = warnings;
    console.log(JSON.stringify(outcome));
  `;
  try {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        "setpriv",
        [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          // Only so that `nobody` can read this checkout and its Node wherever it was cloned (a
          // fresh clone under a 0700 directory, for one); no root privilege.
          "--inh-caps=+dac_read_search",
          "--ambient-caps=+dac_read_search",
          "--",
          process.execPath,
          "--input-type=module",
          "-e",
          script,
        ],
        { cwd: parent },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      ),
    );
    const outcome = JSON.parse(stdout);
    expect(outcome).toMatchObject({ uid: 65534, list: [], create: "service_unavailable" });
    expect(outcome.reason).toContain("they need root");
    expect(outcome.remediation).toContain("start the server as root");
    expect(outcome.unavailable).toEqual({
      lacks: expect.stringContaining("root"),
      remediation: outcome.remediation,
    });
    // One line at start: what is missing and what fixes it.
    expect(outcome.warnings).toEqual([
      expect.stringMatching(
        /^local sandboxes are not available: they need root .*; fix: start the server as root/,
      ),
    ]);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});
