/**
 * The package as a user installs it: `npm pack` (its prepack builds dist/ with tsc) in a copy of
 * sdks/js, then `npm install ./cairn-client-x.tgz --offline` in an empty project, which works
 * only because the package has no dependencies. Its ESM entry then signs up, remembers and
 * recalls against a live server on Node 20, 22 and 24, Deno and Bun, its CommonJS entry answers
 * on the Nodes and Bun, and its type declarations check under TypeScript's Node resolution.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, startLiveServer } from "../../../test/mcp/mcp-harness.ts";
import { jsRuntimes } from "../../../test/support/js-runtimes.ts";

const root = resolve(import.meta.dirname, "../../..");
const run = promisify(execFile);
const toolPath = `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`;

const esmCheck = `import { CairnApiError, CairnClient } from "cairn-client";

const anonymous = new CairnClient({ apiKey: "" });
const email = \`package-\${crypto.randomUUID()}@example.com\`;
const { access_token } = await anonymous.signup(email, "package password 1");
const { key } = await anonymous.createApiKey(access_token, "package test");
const cairn = new CairnClient({ apiKey: key });
await cairn.remember("The staging database is db-staging-2", { kind: "fact" });
const { memories } = await cairn.recall("which database is staging?");
const account = await cairn.account();
let refused = null;
try {
  await cairn.getMemory("no-such-memory");
} catch (error) {
  refused = error instanceof CairnApiError ? error.statusCode : String(error);
}
console.log(JSON.stringify({ account: account.email === email, recalled: memories[0]?.content, refused }));
`;

const commonJsCheck = `const { CairnApiError, CairnClient } = require("cairn-client");

new CairnClient({ apiKey: "" }).account().then(
  () => console.log(JSON.stringify({ refused: null })),
  (error) => console.log(JSON.stringify({ refused: error instanceof CairnApiError ? error.statusCode : String(error) })),
);
`;

const typeCheck = `import { CairnClient, type Memory } from "cairn-client";

const cairn = new CairnClient({ baseUrl: "http://127.0.0.1:8090", apiKey: "cairn_x" });
const recalled: Promise<{ memories: Memory[] }> = cairn.recall("q");
// @ts-expect-error: recall takes a string
cairn.recall(42);
export { recalled };
`;

describe("the packed cairn-client", () => {
  let work: string;
  let project: string;
  let server: LiveServer;
  const runtimes = jsRuntimes();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "cairn-sdk-package-"));
    const copy = join(work, "sdk");
    await mkdir(copy);
    for (const name of ["package.json", "tsconfig.build.json", "tsconfig.cjs.json", "README.md", "src"]) {
      await cp(join(root, "sdks/js", name), join(copy, name), { recursive: true });
    }
    const environment = { ...process.env, PATH: toolPath };
    await run("npm", ["pack", "--pack-destination", work], { cwd: copy, env: environment });
    const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
    project = join(work, "project");
    await mkdir(project);
    await writeFile(join(project, "package.json"), JSON.stringify({ private: true, type: "module" }));
    await run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(work, tarball as string)], {
      cwd: project,
      env: environment,
    });
    await writeFile(join(project, "check.mjs"), esmCheck);
    await writeFile(join(project, "check.cjs"), commonJsCheck);
    await writeFile(join(project, "check.ts"), typeCheck);
    server = await startLiveServer({ SVC_AUTH_RATE_LIMIT_PER_MINUTE: "100" });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const runIn = async (runtime: (typeof runtimes)[number], script: string) => {
    const { stdout } = await run(runtime.command, [...runtime.args, script], {
      cwd: project,
      env: { PATH: toolPath, HOME: project, CAIRN_BASE_URL: server.baseUrl },
      timeout: 60_000,
    });
    return JSON.parse(stdout.trim().split("\n").at(-1) as string);
  };

  it.each(runtimes.map((runtime) => [runtime.name, runtime] as const))(
    "remembers and recalls on %s",
    async (_name, runtime) => {
      expect(await runIn(runtime, "check.mjs")).toEqual({
        account: true,
        recalled: "The staging database is db-staging-2",
        refused: 404,
      });
      if (runtime.name !== "Deno") expect(await runIn(runtime, "check.cjs")).toEqual({ refused: 401 });
    },
    90_000,
  );

  it("has type declarations that check under Node's resolution", async () => {
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2023",
          strict: true,
          noEmit: true,
          lib: ["es2023", "dom"],
          types: [],
        },
        files: ["check.ts"],
      }),
    );
    await run(join(root, "node_modules/.bin/tsc"), ["-p", project], { cwd: project });
  }, 60_000);
});
