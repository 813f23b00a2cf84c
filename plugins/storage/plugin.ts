/**
 * The storage plugin: every repository of core's storage port on SQLite (in the data directory)
 * or PostgreSQL (SVC_DATABASE_URL), with the database's own upkeep: SQLite's log checkpointed on a
 * thread of its own and emptied after a forget, PostgreSQL's memory tables vacuumed after bursts.
 */
import { definePlugin, version } from "../../core/index.ts";
import { sqliteFile } from "./connection-settings.ts";
import { createStorage } from "./create-storage.ts";
import { vacuumAfterBursts } from "./postgres-vacuum.ts";
import { logEmptier, startSqliteCheckpoints } from "./sqlite-checkpoints.ts";

export default definePlugin({
  name: "storage",
  version,
  ports: {
    storage: {
      async sql({ config, logger }) {
        const storage = await createStorage({
          databaseUrl: config.SVC_DATABASE_URL,
          sqlitePath: sqliteFile(config.SVC_DATA_DIR),
          logger,
        });
        const execute = (statement: string) => storage.execute(statement);
        // Where search threads read (the Node server), SQLite's log is checkpointed on a thread of its own.
        const sqlitePath = sqliteFile(config.SVC_DATA_DIR);
        const { emptyLog, whileWritesWait } = storage;
        const checkpoints =
          whileWritesWait && config.SVC_MEMORY_SEARCH_THREADS > 0
            ? await startSqliteCheckpoints({ sqlitePath, execute, whileWritesWait, logger })
            : null;
        // A forget leaves the memory's old pages in SQLite's log: it is emptied just after (by the
        // checkpoint thread's next pass, or at once where the serving connection checkpoints itself).
        const afterForget =
          checkpoints !== null
            ? checkpoints.emptySoon
            : emptyLog
              ? logEmptier({ sqlitePath, emptyLog }, logger).empty
              : undefined;
        // PostgreSQL: the memory tables vacuumed after a burst of writes (postgres-vacuum.ts says why).
        const vacuum = storage.dialect === "postgresql" ? vacuumAfterBursts({ execute, logger }) : null;
        return {
          ...storage,
          upkeep: { afterForget, afterLink: vacuum?.linked },
          async close() {
            await checkpoints?.stop();
            await vacuum?.stop();
            await storage.close();
          },
        };
      },
    },
  },
});
