/**
 * Replicas starting together on one PostgreSQL database (a Deployment's pods) migrate one at a
 * time: each holds a session advisory lock while it migrates, on a connection of its own, so the
 * others wait and then find nothing left to do. Without it two of them create the same tables at
 * once and one dies on a duplicate. A crashed migrator's lock goes with its connection.
 */
import pg from "pg";

export async function withMigrationLock<Result>(
  databaseUrl: string,
  work: () => Promise<Result>,
): Promise<Result> {
  const client = new pg.Client({ connectionString: databaseUrl });
  // An error on the idle lock connection (the database restarting) must not end the process.
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query("select pg_advisory_lock(hashtext('cairn:migrations'))");
    return await work();
  } finally {
    // Ending the session releases the lock.
    await client.end().catch(() => {});
  }
}
