/**
 * Cairn from JavaScript: remember and recall a fact, then run code in a sandbox that is destroyed
 * afterwards. Needs a running server and an API key:
 *   CAIRN_BASE_URL=http://127.0.0.1:8090 CAIRN_API_KEY=cairn_... \
 *     npx node --conditions=cairn-source examples/js-sdk/quickstart.ts
 * (`--conditions=cairn-source` takes the SDK from this checkout's source, no build needed; in your
 * own project: `npm pack ./sdks/js` in the checkout, then `npm install cairn-client-0.1.0.tgz`)
 */
import { CairnClient, CairnError, QuotaExceededError } from "cairn-client";

const cairn = new CairnClient({
  baseUrl: process.env.CAIRN_BASE_URL ?? "http://127.0.0.1:8090",
  apiKey: process.env.CAIRN_API_KEY,
  retry: true,
});

try {
  console.log(`signed in as ${(await cairn.account()).email}`);

  const fact = await cairn.remember("The release train leaves every second Wednesday.", { kind: "fact" });
  const found = await cairn.recall("when does the release train leave?", { limit: 3 });
  console.log(`recalled: ${found.memories[0]?.content}`);

  const { id, result } = await cairn.withSandbox(
    async (sandbox) => {
      await sandbox.fileCreate(
        "fib.js",
        "let [a, b] = [0, 1];\nfor (let i = 0; i < 10; i++) [a, b] = [b, a + b];\nconsole.log(a);\n",
      );
      return { id: sandbox.id, result: await sandbox.exec("node fib.js") };
    },
    { label: "js quickstart" },
  );
  console.log(`sandbox said: ${result.stdout.trim()} (exit ${result.exit_code})`);
  console.log(`sandbox ${id} destroyed: ${(await cairn.getSandbox(id)).status === "destroyed"}`);

  await cairn.forgetMemory(fact.id);
  console.log("forgot the fact");
} catch (error) {
  if (error instanceof QuotaExceededError) console.error(`no sandbox for now: ${error.message}`);
  else if (error instanceof CairnError) console.error(`Error: ${error.message}`);
  else throw error;
  process.exit(1);
}
