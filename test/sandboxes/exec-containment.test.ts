/**
 * What exec cannot do, over REST on real bubblewrap sandboxes: read the server's environment,
 * reach the network (a real HTTP server on the host's loopback), or take the server down with a
 * fork bomb or a memory hog — both are contained and the server keeps answering meanwhile.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import { createSandboxClient, createSandboxPlatform, type SandboxClient } from "./sandbox-client.ts";

const canaryName = "CAIRN_API_ESCAPE_CANARY";
const canaryValue = `canary-${crypto.randomUUID()}`;
let test: TestPlatform;
let client: SandboxClient;
let sessionId: string;

beforeAll(async () => {
  // Set before the platform starts, so the server process has it in its environment.
  process.env[canaryName] = canaryValue;
  test = await createSandboxPlatform("sqlite");
  client = await createSandboxClient(test);
  sessionId = (await client.createActive()).id;
});
afterAll(async () => {
  delete process.env[canaryName];
  await test.close();
});

/** Keeps asking the server for something cheap while `work` runs; returns the answers' statuses. */
async function answersDuring(work: Promise<unknown>): Promise<number[]> {
  const statuses: number[] = [];
  let finished = false;
  const done = work.finally(() => {
    finished = true;
  });
  while (!finished) {
    statuses.push((await client.usage()).status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await done;
  return statuses;
}

describe("exec", () => {
  it("cannot read the server's environment", async () => {
    expect(process.env[canaryName]).toBe(canaryValue);
    const result = await client.exec(
      sessionId,
      `env; cat /proc/1/environ /proc/self/environ /proc/${process.pid}/environ 2>&1 | tr '\\0' '\\n'; ` +
        `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'`,
    );
    expect(result.status).toBe(200);
    expect(result.body.stdout).toContain("HOME=/workspace");
    const output = result.body.stdout + result.body.stderr;
    expect(output).not.toContain(canaryValue);
    expect(output).not.toContain(canaryName);
    expect(output).not.toContain("SVC_");
  });

  describe("network", () => {
    let server: Server;
    let port = 0;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        hits++;
        response.end("reached the host\n");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("cannot reach a server on the host's loopback with curl, wget, bash or python", async () => {
      const url = `http://127.0.0.1:${port}/`;
      const attempts = [
        `curl -sS -m 3 ${url}`,
        `wget -q -T 3 -t 1 -O - ${url}`,
        `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && printf "GET / HTTP/1.0\\r\\n\\r\\n" >&3 && cat <&3'`,
        `python3 -c 'import urllib.request; print(urllib.request.urlopen("${url}", timeout=3).read())'`,
        `curl -sS -m 3 http://example.com/`,
      ];
      for (const command of attempts) {
        const result = await client.exec(sessionId, command, 10);
        expect(result.status).toBe(200);
        expect([command, result.body.exit_code === 0]).toEqual([command, false]);
        expect(result.body.stdout).not.toContain("reached the host");
      }
      expect(hits).toBe(0);
      // The same request from outside the sandbox does arrive, so the checks above can fail.
      expect(await (await fetch(url)).text()).toBe("reached the host\n");
      expect(hits).toBe(1);
    });
  });

  it("contains a fork bomb while the server keeps answering", async () => {
    const bomb = client.exec(sessionId, "bomb() { bomb | bomb & }; bomb; sleep 3; echo survived", 6);
    const statuses = await answersDuring(bomb);
    const result = await bomb;
    expect(result.status).toBe(200);
    // The process limit stopped it, not the timeout.
    expect(result.body.stderr).toContain("Cannot fork");
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Nothing of the bomb outlives the exec, and the sandbox still works.
    const after = await client.exec(sessionId, "ls /proc | grep -c '^[0-9]'; echo fine");
    expect(after.body.stdout.trim().split("\n")).toEqual([expect.stringMatching(/^[1-6]$/), "fine"]);
  });

  it("contains a memory hog while the server keeps answering", async () => {
    // 3 GiB, every page touched: far beyond a small sandbox's 512 MiB.
    const hog = client.exec(
      sessionId,
      'python3 -c \'chunks = [bytearray(b"x" * (64 << 20)) for _ in range(48)]; print("allocated")\'',
      30,
    );
    const statuses = await answersDuring(hog);
    const result = await hog;
    expect(result.status).toBe(200);
    expect(result.body.exit_code).not.toBe(0);
    expect(result.body.stdout).not.toContain("allocated");
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect((await client.exec(sessionId, "echo fine")).body.stdout).toBe("fine\n");
    // Another sandbox was never affected.
    const other = await client.createActive();
    expect((await client.exec(other.id, "echo neighbour")).body.stdout).toBe("neighbour\n");
  });
});
