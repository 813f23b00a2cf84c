/**
 * A sandbox granted hosts (create's `mcp_connection_names`) reaches exactly those, through the
 * egress proxy outside it, and nothing else; a sandbox without grants has no way out at all.
 * The "catalog hosts" are HTTP servers on this machine's loopback, under made-up names the
 * proxy resolves to 127.0.0.1 (never an outside address); the proxy is told those ports.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestRuntime, type TestRuntime } from "../../test/support/local-sandbox-runtime.ts";

function serve(body: string): Promise<Server> {
  const server = createServer((_request, response) => response.end(body));
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

let test: TestRuntime;
let granted: Server;
let other: Server;
let grantedSandbox: string;
let plainSandbox: string;

beforeAll(async () => {
  granted = await serve("hello from the granted host\n");
  other = await serve("hello from a host nobody granted\n");
  test = await createTestRuntime({
    egress: {
      allowPrivateEgress: true,
      resolveHost: async () => ["127.0.0.1"],
      ports: [portOf(granted), portOf(other)],
    },
  });
  grantedSandbox = await test.createSandbox({ egressHosts: ["granted.test"] });
  plainSandbox = await test.createSandbox();
});

afterAll(async () => {
  await test.cleanUp();
  granted.close();
  other.close();
});

const curl = (url: string, options = "") =>
  `curl -s -S --max-time 5 ${options} -w ' %{http_code}' ${url}; echo " exit=$?"`;

describe("egress of a local sandbox", () => {
  it("reaches a granted host through the proxy", async () => {
    const result = await test.run(grantedSandbox, curl(`http://granted.test:${portOf(granted)}/`));
    expect(result.stdout).toBe("hello from the granted host\n 200 exit=0\n");
  });

  it("is refused any other host, by name or by address", async () => {
    const byName = await test.run(grantedSandbox, curl(`http://other.test:${portOf(other)}/`));
    expect(byName.stdout).toMatch(/ 403 exit=0\n$/);
    expect(byName.stdout).not.toContain("nobody granted");
    const byAddress = await test.run(
      grantedSandbox,
      curl(`http://127.0.0.1:${portOf(other)}/`, "--noproxy ''"),
    );
    expect(byAddress.stdout).not.toContain("nobody granted");
  });

  it("has no network of its own: without the proxy nothing leaves the sandbox", async () => {
    const direct = await test.run(
      grantedSandbox,
      curl(`http://127.0.0.1:${portOf(granted)}/`, "--noproxy '*'"),
    );
    expect(direct.stdout).not.toContain("hello");
    expect(direct.stdout).toMatch(/ 000 exit=7\n$/);
  });

  it("gives a sandbox without grants neither the proxy nor its variables", async () => {
    const result = await test.run(
      plainSandbox,
      `test -e /cairn/egress && echo visible; env | grep -i _proxy; ${curl(`http://granted.test:${portOf(granted)}/`)}`,
    );
    expect(result.stdout).not.toContain("visible");
    expect(result.stdout).not.toMatch(/proxy=/i);
    expect(result.stdout).not.toContain("hello");
  });
});
