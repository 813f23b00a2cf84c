/** Writes sdks/openapi.json from the registry (`npm run openapi`); a test fails when it is stale. */
import { writeFile } from "node:fs/promises";
import { version } from "../core/index.ts";
import { createOpenApiDocument } from "../transports/rest/openapi.ts";

const target = new URL("../sdks/openapi.json", import.meta.url);
await writeFile(target, `${JSON.stringify(createOpenApiDocument(version), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
