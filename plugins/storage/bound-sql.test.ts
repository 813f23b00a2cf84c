import { describe, expect, it } from "vitest";
import { type PgPool, postgresBoundSql } from "./bound-sql.ts";

/** A pool that records what it is asked to run. */
function recordingPool() {
  const queries: Array<{ name?: string; text: string; values: unknown[] }> = [];
  const client = {
    query: async (query: { name?: string; text: string; values: unknown[] }) => {
      queries.push(query);
      return { rows: [] };
    },
  };
  const pool: PgPool = { ...client, connect: async () => ({ ...client, release: () => {} }) };
  return { pool, queries };
}

describe("PostgreSQL bound SQL", () => {
  it("prepares a statement text from its third use, under a name no other text ever gets", async () => {
    const { pool, queries } = recordingPool();
    const { execute } = postgresBoundSql(pool);
    for (let round = 0; round < 4; round++) await execute("select * from memories where id = ?", ["a"]);
    expect(queries.map((query) => query.name)).toEqual([
      undefined,
      undefined,
      expect.any(String),
      queries[2].name,
    ]);
    expect(queries[0].text).toBe("select * from memories where id = $1");
    for (let round = 0; round < 3; round++)
      await execute("select * from memories where id in (?, ?)", ["a", "b"]);
    const other = queries.at(-1)?.name;
    expect(other).toEqual(expect.any(String));
    expect(other).not.toBe(queries[2].name);
    // Another instance (another pool, or the same one) never hands out the same names.
    const second = recordingPool();
    const { execute: secondExecute } = postgresBoundSql(second.pool);
    for (let round = 0; round < 3; round++) await secondExecute("select * from memories where id = ?", ["a"]);
    expect(second.queries.at(-1)?.name).not.toBe(queries[2].name);
  });

  it("prepares at most 500 texts; the rest run unnamed", async () => {
    const { pool, queries } = recordingPool();
    const { execute } = postgresBoundSql(pool);
    for (let text = 0; text < 510; text++) {
      for (let round = 0; round < 3; round++) await execute(`select ${text}`, []);
    }
    const named = new Set(queries.flatMap((query) => (query.name ? [query.name] : [])));
    expect(named.size).toBe(500);
    expect(queries.slice(-3).map((query) => query.name)).toEqual([undefined, undefined, undefined]);
  });
});
