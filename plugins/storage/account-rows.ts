/**
 * What the per-account repositories over bound SQL share (secrets, volumes, MCP connections,
 * images): a table whose rows belong to an account, read whole, listed newest first, found by id
 * or by a name column, deleted by id, and created under the account's cap. The cap is counted
 * and the row inserted in one transaction, under a lock on the account row on PostgreSQL (SQLite
 * has one writer), so two racing creates cannot both take the last slot.
 */
import type { ServiceError } from "../../core/index.ts";
import { sqlTimestamp } from "./memory-rows.ts";
import type { Dialect } from "./migrations/index.ts";
import { isUniqueViolation } from "./repositories.ts";
import type { Execute, RunTransaction } from "./sql-execution.ts";
import { empty, list, raw, type Sql, sql } from "./sql-statement.ts";

type Row = Record<string, unknown>;

export interface AccountTableSettings<Column extends string, Item> {
  execute: Execute;
  runTransaction: RunTransaction;
  dialect: Dialect;
  /** The table's name and the columns an item is read from (and inserted into), both trusted text. */
  table: string;
  columns: readonly Column[];
  read(row: Row): Item;
}

export interface Cap {
  limit: number;
  /** Rows left out of the count, as ` and …` over the table (volumes being deleted). */
  counted?: Sql;
  refusal(count: number): ServiceError;
}

export function accountTable<const Column extends string, Item>(
  settings: AccountTableSettings<Column, Item>,
) {
  const { execute, dialect, read } = settings;
  const time = sqlTimestamp(dialect);
  const table = raw(settings.table);
  const columns = raw(settings.columns.join(", "));
  const selected = sql`select ${columns} from ${table}`;

  /** Counts the account's rows (locked on PostgreSQL) and refuses at the cap; inside a transaction. */
  async function checkCap(run: Execute, accountId: string, cap: Cap) {
    if (dialect === "postgresql") await run(sql`select id from accounts where id = ${accountId} for update`);
    const [{ total }] = await run<{ total: number | string }>(
      sql`select count(*) as total from ${table} where account_id = ${accountId}${cap.counted ?? empty}`,
    );
    if (Number(total) >= cap.limit) throw cap.refusal(Number(total));
  }

  /** Inserts a row; `taken` says what a unique violation means (a name in use), if anything. */
  async function insert(run: Execute, row: Record<Column, unknown>, taken?: () => ServiceError) {
    try {
      await run(
        sql`insert into ${table} (${columns}) values (${list(settings.columns.map((column) => row[column]))})`,
      );
    } catch (error) {
      if (taken !== undefined && isUniqueViolation(error)) throw taken();
      throw error;
    }
  }

  return {
    columns,
    read,
    selected,
    checkCap,
    insert,
    /** The cap checked and the row inserted, in one transaction. */
    create(row: Record<Column, unknown> & { account_id: string }, cap: Cap, taken?: () => ServiceError) {
      return settings.runTransaction(async (run) => {
        await checkCap(run, row.account_id, cap);
        await insert(run, row, taken);
      });
    },
    async get(accountId: string, id: string): Promise<Item | null> {
      const [row] = await execute(sql`${selected} where account_id = ${accountId} and id = ${id}`);
      return row ? read(row) : null;
    },
    async list(accountId: string): Promise<Item[]> {
      const rows = await execute(
        sql`${selected} where account_id = ${accountId} order by created_at desc, id desc`,
      );
      return rows.map(read);
    },
    /** The account's rows whose `column` is one of `values`. */
    async findIn(accountId: string, column: Column, values: readonly unknown[]): Promise<Item[]> {
      if (values.length === 0) return [];
      const rows = await execute(
        sql`${selected} where account_id = ${accountId} and ${raw(column)} in (${list(values)})`,
      );
      return rows.map(read);
    },
    /** Marks the account's rows whose `column` is one of `values` as used at `now`. */
    async touch(accountId: string, column: Column, values: readonly unknown[], now: Date) {
      if (values.length === 0) return;
      await execute(
        sql`update ${table} set last_used_at = ${time(now)} where account_id = ${accountId} and ${raw(column)} in (${list(values)})`,
      );
    },
    async delete(accountId: string, id: string): Promise<boolean> {
      const rows = await execute(
        sql`delete from ${table} where account_id = ${accountId} and id = ${id} returning id`,
      );
      return rows.length > 0;
    },
  };
}
