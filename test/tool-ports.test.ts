/**
 * Tools receive the ports they use (docs/architecture.md, "The path of a request"): every
 * operation declares in `uses` which of `PlatformServices` its handler and its helpers reach, and
 * invoke hands the handler a frozen object holding only those. An undeclared port is a type error
 * (the `@ts-expect-error` below fails `tsc` if it stops being one) and undefined at run time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyTool, allOperations, defineTool, invoke } from "../core/index.ts";
import { type PlatformServices, platformServiceNames } from "../core/platform-services.ts";
import { getAccount } from "../core/tools/account/get-account.ts";
import { createAccountWithKey, createTestPlatform, type TestPlatform } from "./support/platforms.ts";

describe("what each operation declares it uses", () => {
  it("every operation declares uses, each a PlatformServices name, none twice", () => {
    const problems = allOperations.flatMap((tool: AnyTool) => {
      if (!Array.isArray(tool.uses)) return [`${tool.name}: no uses`];
      const unknown = tool.uses.filter((name) => !platformServiceNames.includes(name));
      const twice = tool.uses.filter((name, index) => tool.uses.indexOf(name) !== index);
      return [
        ...unknown.map((name) => `${tool.name}: ${name} is not a PlatformServices name`),
        ...twice.map((name) => `${tool.name}: ${name} declared twice`),
      ];
    });
    expect(problems).toEqual([]);
  });
});

describe("what invoke hands a handler", () => {
  let test: TestPlatform;
  let key: string;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
    ({ key } = await createAccountWithKey(test));
  });
  afterAll(() => test?.close());

  const request = (credential: string | null) => ({
    credential,
    clientIp: "198.51.100.1",
    requestId: "r",
    signal: new AbortController().signal,
    input: {},
  });

  it("gives get_account only the storage it declared, one frozen object for every call", async () => {
    const seen: object[] = [];
    const watched: AnyTool = {
      ...getAccount,
      handler(context, input) {
        seen.push(context.platform);
        return getAccount.handler(context, input);
      },
    };
    const { output } = await invoke(test.platform, watched, request(key));
    await invoke(test.platform, watched, request(key));
    expect(output).toMatchObject({ id: expect.any(String) });
    expect(Object.keys(seen[0])).toEqual(["storage"]);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(seen[1]).toBe(seen[0]);
    expect((seen[0] as PlatformServices).storage).toBe(test.platform.storage);
    expect((seen[0] as Partial<PlatformServices>).config).toBeUndefined();
  });

  it("leaves a port the operation did not declare undefined, and a type error", async () => {
    const undeclared = defineTool({
      name: "undeclared_port",
      group: "account",
      title: "Reaches an undeclared port",
      description: "Declares the clock, then reads storage.",
      annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
      input: z.object({}),
      output: z.object({ clock: z.boolean(), storage: z.boolean() }),
      auth: "none",
      bucket: null,
      uses: ["clock"],
      async handler(context) {
        // @ts-expect-error storage is not in uses
        const storage: unknown = context.platform.storage;
        return { clock: context.platform.clock !== undefined, storage: storage !== undefined };
      },
    });
    const { output } = await invoke(test.platform, undeclared, request(null));
    expect(output).toEqual({ clock: true, storage: false });
  });
});
