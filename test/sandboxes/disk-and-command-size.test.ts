/**
 * Over REST, on real bubblewrap sandboxes: `storage_gb` is a disk quota (finding 4), and a long
 * command is a command, not a server fault (finding 7: a command between 128 KiB, the kernel's
 * limit on one argument, and the API's 1 MiB was a retryable 502).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestPlatform } from "../support/platforms.ts";
import {
  createSandboxClient,
  createSandboxPlatform,
  errorCode,
  type SandboxClient,
} from "./sandbox-client.ts";

let test: TestPlatform;
let client: SandboxClient;

beforeAll(async () => {
  test = await createSandboxPlatform("sqlite");
  client = await createSandboxClient(test);
});
afterAll(async () => {
  await test.close();
});

describe("storage_gb", () => {
  it("stops writes at the quota inside the sandbox and in the file routes; deleting makes room again", async () => {
    const { id } = await client.createActive({ storage_gb: 0.01 });
    const filled = await client.exec(id, "head -c 50M /dev/zero > big; echo exit=$?", 60);
    expect(filled.status).toBe(200);
    expect(filled.body.stderr).toContain("No space left on device");
    expect(filled.body.stdout).not.toContain("exit=0");

    const write = await client.sendJson(`/v1/sandboxes/${id}/files`, {
      method: "POST",
      json: { path: "more.txt", content: "x".repeat(1024 * 1024) },
    });
    expect(write.status).toBe(422);
    expect(errorCode(write.body)).toBe("validation_error");
    expect((write.body as { error: { retryable: boolean } }).error.retryable).toBe(false);

    const recovered = await client.exec(id, "rm big && echo fine > small.txt && cat small.txt");
    expect(recovered.body.stdout).toBe("fine\n");
    const again = await client.sendJson(`/v1/sandboxes/${id}/files`, {
      method: "POST",
      json: { path: "more.txt", content: "x".repeat(1024 * 1024) },
    });
    expect(again.status).toBe(200);
    await client.destroy(id);
  });
});

describe("command size", () => {
  let sessionId: string;
  beforeAll(async () => {
    sessionId = (await client.createActive()).id;
  });

  it("runs commands past the kernel's 128 KiB argument limit, up to the API's 1 MiB", async () => {
    for (const size of [127 * 1024, 129 * 1024, 512 * 1024, 1024 * 1024]) {
      // A comment pads the command to exactly `size` characters; the shell still runs the rest.
      const tail = '\necho ran; printf %s "$0"';
      const command = `#${"x".repeat(size - 1 - tail.length)}${tail}`;
      expect(command.length).toBe(size);
      const result = await client.exec(sessionId, command);
      expect([size, result.status, result.body.stdout, result.body.exit_code]).toEqual([
        size,
        200,
        "ran\n/bin/sh",
        0,
      ]);
    }
  });

  it("refuses a command over 1 MiB with a clear 422, and a long command keeps shell semantics", async () => {
    const tooLong = await client.exec(sessionId, "x".repeat(1024 * 1024 + 1));
    expect([tooLong.status, errorCode(tooLong.body)]).toEqual([422, "validation_error"]);
    // A syntax error is the shell's answer (exit 2), a long here-document is data, `$$` is the
    // command's own shell, and exit codes pass through.
    const syntax = await client.exec(sessionId, `${"true; ".repeat(30_000)}if`);
    expect([syntax.status, syntax.body.exit_code]).toEqual([200, 2]);
    const document = "y".repeat(300 * 1024);
    const hereDocument = await client.exec(sessionId, `wc -c <<'EOF'\n${document}\nEOF`);
    expect(hereDocument.body.stdout.trim()).toBe(String(document.length + 1));
    const status = await client.exec(sessionId, `${": padding; ".repeat(20_000)}kill -9 $$`);
    expect(status.body.exit_code).toBe(137);
  });
});
