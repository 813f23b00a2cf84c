/**
 * The files a database keeps its data in, and which of them hold some bytes: what the forget
 * tests read to prove a forgotten memory left nothing behind.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";

/** Every file below a folder (the SQLite data directory). */
export async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** The files of every table and index of a PostgreSQL database, after rewriting them (VACUUM FULL, a checkpoint). */
export async function postgresRelationFiles(databaseUrl: string | undefined): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("vacuum full");
    await client.query("checkpoint");
    const directory = (await client.query<{ data_directory: string }>("show data_directory")).rows[0]
      .data_directory;
    const relations = await client.query<{ path: string }>(
      "select pg_relation_filepath(c.oid) as path from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind in ('r', 'i', 't') and pg_relation_filepath(c.oid) is not null",
    );
    return relations.rows.map((row) => join(directory, row.path));
  } finally {
    await client.end();
  }
}

/** The files that contain the bytes (a string as UTF-8); a file gone meanwhile holds nothing. */
export async function filesHolding(files: string[], needle: string | Uint8Array): Promise<string[]> {
  const bytes = typeof needle === "string" ? Buffer.from(needle, "utf8") : Buffer.from(needle);
  const holding: string[] = [];
  for (const file of files) {
    const content = await readFile(file).catch(() => Buffer.alloc(0));
    if (content.includes(bytes)) holding.push(file);
  }
  return holding;
}
