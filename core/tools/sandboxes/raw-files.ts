/**
 * The raw byte routes, PUT and GET /v1/sandboxes/{id}/files/raw (docs/api.md#raw-files). They
 * are REST-only and stream their bytes, so they are not in the registry (no JSON body, no MCP
 * tool, nothing for the operation manifest); the REST transport runs them through `invoke` all
 * the same, so the credential, the sandbox_ops bucket, "owned and active" and the error envelope
 * are those of every other file route. OpenAPI documents them beside the registry's routes.
 */
import { z } from "zod";
import { downloadFile, uploadFile } from "../../sandboxes/files/raw-files.ts";
import { defineTool } from "../../tool.ts";
import { pathField, withFiles } from "./files.ts";
import { sessionIdParameter } from "./sessions.ts";

const byteStream = z.custom<ReadableStream<Uint8Array>>((value) => value instanceof ReadableStream, {
  message: "Expected a byte stream",
});

export const rawFilesPath = "/v1/sandboxes/:session_id/files/raw";

export const uploadFileRaw = defineTool({
  name: "upload_file",
  group: "files",
  title: "Upload a file's bytes",
  description:
    "Write the request body's exact bytes to a file (at most 100 MiB), replacing it once every byte has arrived.",
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("File path; relative paths resolve under /workspace"),
    body: byteStream.describe("The file's bytes"),
  }),
  output: z.object({ path: z.string(), size: z.number().int(), created: z.boolean() }),
  auth: "api_key",
  bucket: "sandbox_ops",
  uses: ["plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(context, input.session_id, "file upload", (files) => uploadFile(files, input), {
      path: input.path,
      operation: "create",
      bytes: (result) => result.size,
    }),
});

export const downloadFileRaw = defineTool({
  name: "download_file",
  group: "files",
  title: "Download a file's bytes",
  description: "Read a file's exact bytes as a stream, whatever its size.",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({
    session_id: sessionIdParameter,
    path: pathField.describe("File path; relative paths resolve under /workspace"),
  }),
  output: z.object({ path: z.string(), size: z.number().int(), stream: byteStream }),
  auth: "api_key",
  bucket: "sandbox_ops",
  uses: ["plugins", "sandboxRuntime", "storage"],
  handler: (context, input) =>
    withFiles(context, input.session_id, "file download", (files) => downloadFile(files, input), {
      path: input.path,
      operation: "view",
      bytes: (result) => result.size,
    }),
});
