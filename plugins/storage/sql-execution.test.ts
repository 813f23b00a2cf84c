/**
 * Statements from the `sql` tag on both real databases: values bound in order through nested
 * fragments, and each driver's placeholders written where the values go, never found by scanning
 * the text (a `?` in a literal or an operator is SQL, not a placeholder).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestPlatform, storageTargets, type TestPlatform } from "../../test/support/platforms.ts";
import { join, list, postgresText, raw, sql, sqliteText } from "./sql-statement.ts";

describe("the sql tag", () => {
  it("splices fragments, keeps the values in order and writes each driver's placeholders", () => {
    const scope = sql` and scope = ${"notes"}`;
    const statement = sql`select ${raw("id, scope")} from memories where account_id = ${"a"}${scope} and id in (${list(["x", "y"])}) limit ${5}`;
    expect(statement.values).toEqual(["a", "notes", "x", "y", 5]);
    expect(sqliteText(statement)).toBe(
      "select id, scope from memories where account_id = ? and scope = ? and id in (?, ?) limit ?",
    );
    expect(postgresText(statement)).toBe(
      "select id, scope from memories where account_id = $1 and scope = $2 and id in ($3, $4) limit $5",
    );
    const rows = join([sql`(${1}, ${2})`, sql`(${3}, ${4})`]);
    expect(postgresText(sql`values ${rows}`)).toBe("values ($1, $2), ($3, $4)");
    expect(sqliteText(list([]))).toBe("");
  });
});

describe.each(storageTargets)("bound statements on %s", (target) => {
  let test: TestPlatform;
  beforeAll(async () => {
    test = await createTestPlatform(target);
  });
  afterAll(() => test.close());

  // Regression: a regex turned every `?` of the text into `$n` on PostgreSQL, literals included.
  it("leaves a ? inside a string literal alone", async () => {
    const rows = await test.platform.storage.execute<{ mark: string; value: string }>(
      sql`select '?' as mark, ${"bound"} as value`,
    );
    expect(rows).toEqual([{ mark: "?", value: "bound" }]);
  });

  if (target === "postgresql")
    it("leaves jsonb's ?| operator alone", async () => {
      const [row] = await test.platform.storage.execute<{ found: boolean }>(
        sql`select ${JSON.stringify({ a: 1 })}::jsonb ?| ${["a", "b"]}::text[] as found`,
      );
      expect(row.found).toBe(true);
    });
});
