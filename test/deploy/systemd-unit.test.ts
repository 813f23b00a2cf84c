/**
 * deploy/systemd/cairn.service and its env file: `systemd-analyze verify` accepts the unit with
 * no warning (its /opt/cairn paths mapped onto this checkout), ExecStart runs this checkout's
 * Node 24 on the server's entry point, and every variable of the env example is one core/config.ts
 * declares and parses.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../core/config.ts";

const root = resolve(import.meta.dirname, "../..");
const installed = "/opt/cairn";
const unitPath = join(root, "deploy/systemd/cairn.service");
const envExamplePath = join(root, "deploy/systemd/cairn.env.example");

/** The unit's `key=value` lines by section; repeated keys keep every value. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1];
      sections[section] ??= {};
      continue;
    }
    const separator = line.indexOf("=");
    expect(separator, line).toBeGreaterThan(0);
    const key = line.slice(0, separator).trim();
    sections[section][key] = [...(sections[section][key] ?? []), line.slice(separator + 1).trim()];
  }
  return sections;
}

function parseEnvironmentFile(text: string): Record<string, string> {
  const entries = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const separator = line.indexOf("=");
      return [line.slice(0, separator), line.slice(separator + 1)] as const;
    });
  return Object.fromEntries(entries);
}

const onThisCheckout = (path: string) => path.replace(installed, root);

describe("the systemd unit", () => {
  it("starts this checkout's Node 24 on platform/serve.ts with the env file, as root with its state directory", async () => {
    const unit = parseUnit(await readFile(unitPath, "utf8"));
    const service = unit.Service;
    const [executable, ...args] = service.ExecStart[0].split(/\s+/);
    expect(executable).toBe(`${installed}/node_modules/.bin/node`);
    expect(existsSync(onThisCheckout(executable))).toBe(true);
    // Node's flags as `npm start` gives them (docs/memory.md), then the entry.
    expect(args).toEqual(["--max-semi-space-size=16", `${installed}/platform/serve.ts`]);
    expect(existsSync(onThisCheckout(args[1]))).toBe(true);
    const version = await new Promise<string>((resolveVersion, reject) =>
      execFile(onThisCheckout(executable), ["--version"], (error, stdout) =>
        error ? reject(error) : resolveVersion(stdout.trim()),
      ),
    );
    expect(version).toMatch(/^v24\./);
    expect(service.WorkingDirectory).toEqual([installed]);
    expect(service.EnvironmentFile).toEqual(["/etc/cairn/cairn.env"]);
    // Local sandboxes need root, cgroups it manages and writable /sys/fs/cgroup (see the header).
    expect(service.User).toEqual(["root"]);
    expect(service.Delegate).toEqual(["yes"]);
    expect(service.StateDirectory).toEqual(["cairn"]);
    for (const breaksSandboxes of [
      "ProtectControlGroups",
      "ProtectKernelTunables",
      "PrivateDevices",
      "RestrictNamespaces",
    ]) {
      expect(service[breaksSandboxes], breaksSandboxes).toBeUndefined();
    }
    expect(unit.Install.WantedBy).toEqual(["multi-user.target"]);
  });

  it("has an env example whose every variable core/config.ts declares and accepts", async () => {
    const environment = parseEnvironmentFile(await readFile(envExamplePath, "utf8"));
    const configSource = await readFile(join(root, "core/config.ts"), "utf8");
    for (const name of Object.keys(environment)) {
      expect(configSource, name).toMatch(new RegExp(`^\\s+${name}:`, "m"));
    }
    const config = loadConfig(environment);
    expect(config).toMatchObject({
      SVC_ENV: "production",
      SVC_DATA_DIR: "/var/lib/cairn",
      SVC_SANDBOX_RUNTIME: "local",
    });
    // The placeholders are long enough that production's 32-byte check is not what stops a start.
    expect(new TextEncoder().encode(config.SVC_JWT_SECRET).length).toBeGreaterThanOrEqual(32);
    expect(new TextEncoder().encode(config.SVC_SECRETS_KEY).length).toBeGreaterThanOrEqual(32);
  });

  it("passes systemd-analyze verify without a warning", async (context) => {
    if (!existsSync("/usr/bin/systemd-analyze")) context.skip();
    const directory = await mkdtemp(join(tmpdir(), "cairn-systemd-"));
    try {
      const unit = (await readFile(unitPath, "utf8"))
        .replaceAll(installed, root)
        .replace("/etc/cairn/cairn.env", envExamplePath);
      await writeFile(join(directory, "cairn.service"), unit);
      const result = await new Promise<{ code: number; output: string }>((resolveResult) =>
        execFile(
          "/usr/bin/systemd-analyze",
          ["verify", join(directory, "cairn.service")],
          (error, stdout, stderr) =>
            resolveResult({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
        ),
      );
      expect(result).toEqual({ code: 0, output: "" });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
