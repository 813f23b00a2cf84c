/** The in-process caller runs operations through the same pipeline as REST, without HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestPlatform, type TestPlatform } from "../test/support/platforms.ts";
import { ServiceError } from "./errors.ts";

describe("in-process caller", () => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform("sqlite");
  });
  afterAll(() => test.close());

  it("signs up, creates a key and remembers with the same checks as REST", async () => {
    // Inputs and outputs are typed from each operation's schemas: no casts below.
    const signup = await test.call("signup", {
      email: "Caller@Example.com ",
      password: "in-process password",
    });
    const created = await test.call(
      "create_api_key",
      { name: "caller" },
      { credential: signup.access_token },
    );
    const account = await test.call("get_account", {}, { credential: created.key });
    expect(account.email).toBe("caller@example.com");
    const memory = await test.call(
      "remember",
      { content: "Called in process." },
      { credential: created.key },
    );
    expect(memory.kind).toBe("fact");
    await expect(test.call("get_account", {}, { credential: signup.access_token })).rejects.toMatchObject({
      code: "wrong_credential_type",
    });
    await expect(test.call("remember", { content: "" }, { credential: created.key })).rejects.toBeInstanceOf(
      ServiceError,
    );
    // @ts-expect-error: not an operation name, so it does not type-check either.
    await expect(test.call("no_such_operation", {})).rejects.toMatchObject({ code: "not_found" });
  });

  it("locates a bad field in the operation's input, not in a transport's request", async () => {
    const error = await test
      .call("signup", { email: "not an email", password: "x" })
      .catch((thrown) => thrown);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).details).toEqual(
      expect.arrayContaining([expect.objectContaining({ loc: ["email"] })]),
    );
  });
});
