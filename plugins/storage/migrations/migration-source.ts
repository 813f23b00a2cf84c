/** One migration as written: its name and its statements for each dialect (index.ts lists them in order). */
export interface MigrationSource {
  name: string;
  sqlite: string[];
  postgresql: string[];
}
