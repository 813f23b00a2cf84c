/**
 * Core's root entry: the operation registry, the request pipeline, errors, configuration and
 * ports, and the few rules plugins apply too (address checks, default disk sizes, where language
 * servers are mounted). With core/ports/ it is all of core a plugin or a library may import
 * (test/import-boundaries.test.ts). Web-standard APIs and zod only (no node: modules, no
 * transport or plugin), so Node and Deno both run it; test/core-boundary.test.ts proves it.
 */
export * from "./auth/api-keys.ts";
export * from "./auth/dashboard-tokens.ts";
export * from "./auth/oauth-authorization.ts";
export * from "./auth/oauth-client-documents.ts";
export * from "./auth/oauth-clients.ts";
export * from "./auth/oauth-grants.ts";
export * from "./auth/oauth-values.ts";
export * from "./caller.ts";
export * from "./config.ts";
export { dependencyRetryAfterSeconds } from "./dependency-failures.ts";
export * from "./errors.ts";
export * from "./event-loop-turns.ts";
export * from "./invoke.ts";
export * from "./json-in-slices.ts";
export * from "./memory/memory-writer.ts";
export { createInlineRelationDetection } from "./memory/relation-runs.ts";
export type * from "./platform.ts";
export type * from "./platform-services.ts";
export { definePlugin, isPlugin, type Plugin } from "./plugins/define-plugin.ts";
export * from "./ports/clock.ts";
export type * from "./ports/egress.ts";
export * from "./ports/embeddings.ts";
export * from "./ports/logger.ts";
export type * from "./ports/memory-search.ts";
export type * from "./ports/memory-store.ts";
export type * from "./ports/oauth-storage.ts";
export type * from "./ports/passwords.ts";
export * from "./ports/pattern-work.ts";
export * from "./ports/plugin-ports.ts";
export type * from "./ports/preview-storage.ts";
export type * from "./ports/rate-limit.ts";
export { rateLimitStoreNames } from "./ports/rate-limit.ts";
export * from "./ports/relation-detection.ts";
export type * from "./ports/sandbox-activity.ts";
export type * from "./ports/sandbox-runtime.ts";
export { sandboxRuntimeNames } from "./ports/sandbox-runtime.ts";
export type * from "./ports/storage.ts";
export * from "./rate-limits.ts";
export * from "./registry.ts";
export { toActivityOut } from "./sandboxes/activity/activity-out.ts";
export { createOutputKeeper, joinKeptOutput, type OutputKeeper } from "./sandboxes/exec/kept-output.ts";
export { maxRawUploadBytes } from "./sandboxes/files/raw-files.ts";
export { languageServersPath } from "./sandboxes/lsp/languages.ts";
export { isUnsafeAddress, parseAddress } from "./sandboxes/network/network-addresses.ts";
export {
  exchange as previewExchange,
  requestHead as previewRequestHead,
} from "./sandboxes/previews/http-exchange.ts";
export { type PreviewRecord, previewTrafficPerMinute } from "./sandboxes/previews/previews.ts";
export type { PortConnection } from "./sandboxes/previews/relay.ts";
export {
  openSandboxSocket,
  type SandboxSocket,
  type SocketMessage,
} from "./sandboxes/previews/websocket-relay.ts";
export * from "./sandboxes/sessions/lifecycle.ts";
export { defaultStorageGb } from "./sandboxes/sessions/sizes.ts";
export * from "./token-bucket.ts";
export * from "./tool.ts";
export { downloadFileRaw, rawFilesPath, uploadFileRaw } from "./tools/sandboxes/raw-files.ts";
export * from "./version.ts";
