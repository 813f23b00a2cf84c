/**
 * `CairnClient`: one method per REST route, named as CONTRACT §7 names them for JavaScript.
 * Methods take the required values as arguments and the rest as a camelCase options object, send
 * the wire's snake_case fields, and return the server's JSON unchanged. Memory calls send their
 * defaults explicitly (scope "default", kind "fact", metadata {}, importance 0.5), so a server
 * with other defaults still stores what the SDK documents.
 */
import { type ActivityEntry, streamActivityEvents } from "./activity-stream.ts";
import { defaultBaseUrl, normalizeBaseUrl } from "./base-url.ts";
import { environmentValue } from "./environment.ts";
import { CairnApiError, CairnError } from "./errors.ts";
import { type ExecEvent, type ProcessEvent, streamExecEvents, streamProcessEvents } from "./event-stream.ts";
import { operationDefaults as defaults } from "./generated/types.ts";
import {
  type HttpCall,
  type QueryValue,
  type RawCall,
  type RetryOptions,
  retrySettings,
  send,
  sendRaw,
  type Transport,
} from "./transport.ts";
import type {
  AllowedCommandRule,
  CallToolOptions,
  CreateImageOptions,
  CreateSandboxOptions,
  FileEncoding,
  HttpRequestOptions,
  ImportedMemory,
  ImportedRelation,
  IngestOptions,
  ListMemoriesOptions,
  Output,
  RememberOptions,
  Sandbox,
  ToolList,
  UploadFileResult,
} from "./types.ts";

export interface CairnClientOptions {
  /** Default `CAIRN_BASE_URL`, else http://127.0.0.1:8090. https, or plain http only for
   * localhost and 127.0.0.1. */
  baseUrl?: string;
  /** An API key (`cairn_…`), default `CAIRN_API_KEY`; pass "" for none. Signup, login and the key
   * routes work without one. */
  apiKey?: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  fetchImpl?: typeof fetch;
  /** Per-request timeout in ms (default 30000); exec waits its command's timeout + 15 s instead. */
  timeoutMs?: number;
  /** Opt-in retry of idempotent calls: true for the defaults, or the settings. */
  retry?: boolean | RetryOptions;
}

/** Extra HTTP wait beyond a sandbox-side timeout, so the server's own answer arrives first. */
const sandboxTimeoutMarginMs = 15_000;

const segment = (value: string) => encodeURIComponent(value);

/** The raw file routes' default timeout, for the whole transfer (100 MiB on a slow link). */
const rawTransferTimeoutMs = 10 * 60_000;

const rawPath = (sessionId: string) => `/v1/sandboxes/${segment(sessionId)}/files/raw`;

/** Base64 of bytes, in slices (btoa is everywhere fetch is, Node, Deno and browsers alike). */
function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

function sandboxBody(options: CreateSandboxOptions, count: number) {
  return {
    label: options.label ?? null,
    size: options.size ?? defaults.create_sandbox.size,
    storage_gb: options.storageGb ?? null,
    lifetime_minutes: options.lifetimeMinutes ?? null,
    count,
    secret_names: options.secretNames ?? null,
    image_id: options.imageId ?? null,
    mcp_connection_names: options.mcpConnectionNames ?? null,
    volume_mounts: options.volumeMounts ?? null,
  };
}

export class CairnClient {
  readonly baseUrl: string;
  readonly #transport: Transport;
  readonly #apiKey: string | null;

  constructor(options: CairnClientOptions = {}) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? environmentValue("CAIRN_BASE_URL") ?? defaultBaseUrl);
    const fetchImpl = options.fetchImpl ?? globalThis.fetch?.bind(globalThis);
    if (!fetchImpl) throw new CairnError("No fetch available: pass fetchImpl");
    this.#transport = {
      baseUrl: this.baseUrl,
      fetchImpl,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: retrySettings(options.retry),
    };
    this.#apiKey = (options.apiKey ?? environmentValue("CAIRN_API_KEY")) || null;
  }

  #send<T>(call: Omit<HttpCall, "credential"> & { credential?: string | null }): Promise<T> {
    return send<T>(this.#transport, { ...call, credential: call.credential ?? this.#apiKey });
  }

  #get<T>(path: string, query?: Record<string, QueryValue>) {
    return this.#send<T>({ method: "GET", path, query });
  }

  #post<T>(path: string, body: unknown, timeoutMs?: number) {
    return this.#send<T>({ method: "POST", path, body, timeoutMs });
  }

  #delete(path: string): Promise<void> {
    return this.#send<void>({ method: "DELETE", path });
  }

  // Accounts and keys. Key routes take the dashboard token from signup or login.
  signup(email: string, password: string) {
    return this.#send<Output<"signup">>({
      method: "POST",
      path: "/v1/auth/signup",
      body: { email, password },
      credential: "",
    });
  }
  login(email: string, password: string) {
    return this.#send<Output<"login">>({
      method: "POST",
      path: "/v1/auth/login",
      body: { email, password },
      credential: "",
    });
  }
  /** `role`: `admin` (default) or `member` (cannot delete snapshots or mint takeover tokens). */
  createApiKey(accessToken: string, name: string, options: { role?: "admin" | "member" } = {}) {
    return this.#send<Output<"create_api_key">>({
      method: "POST",
      path: "/v1/api-keys",
      body: { name, role: options.role ?? "admin" },
      credential: accessToken,
    });
  }
  listApiKeys(accessToken: string) {
    return this.#send<Output<"list_api_keys">>({
      method: "GET",
      path: "/v1/api-keys",
      credential: accessToken,
    });
  }
  revokeApiKey(accessToken: string, keyId: string) {
    return this.#send<void>({
      method: "DELETE",
      path: `/v1/api-keys/${segment(keyId)}`,
      credential: accessToken,
    });
  }
  account() {
    return this.#get<Output<"get_account">>("/v1/account");
  }
  usage() {
    return this.#get<Output<"get_usage">>("/v1/usage");
  }
  getAllowedCommands() {
    return this.#get<Output<"get_allowed_commands">>("/v1/account/allowed-commands");
  }
  setAllowedCommands(rules: AllowedCommandRule[]) {
    return this.#send<Output<"set_allowed_commands">>({
      method: "PUT",
      path: "/v1/account/allowed-commands",
      body: { rules },
    });
  }
  clearAllowedCommands() {
    return this.#delete("/v1/account/allowed-commands");
  }

  // Sandboxes.
  createSandbox(options: CreateSandboxOptions = {}): Promise<Sandbox> {
    return this.#post<Sandbox>("/v1/sandboxes", sandboxBody(options, 1));
  }
  /** Several sandboxes in one all-or-nothing call. */
  createSandboxes(count: number, options: CreateSandboxOptions = {}): Promise<Sandbox[]> {
    return this.#post<Sandbox | Sandbox[]>("/v1/sandboxes", sandboxBody(options, count)).then((created) =>
      Array.isArray(created) ? created : [created],
    );
  }
  getSandbox(sessionId: string) {
    return this.#get<Output<"get_sandbox">>(`/v1/sandboxes/${segment(sessionId)}`);
  }
  listSandboxes(options: { activeOnly?: boolean } = {}) {
    return this.#get<Output<"list_sandboxes">>("/v1/sandboxes", {
      active_only: options.activeOnly ?? defaults.list_sandboxes.active_only,
    });
  }
  destroySandbox(sessionId: string) {
    return this.#delete(`/v1/sandboxes/${segment(sessionId)}`);
  }
  /** Runs a shell command; the HTTP call waits the command's timeout (default 30 s) plus 15 s. */
  exec(sessionId: string, command: string, options: { timeout?: number; description?: string } = {}) {
    const timeout = options.timeout ?? defaults.exec.timeout;
    return this.#post<Output<"exec">>(
      `/v1/sandboxes/${segment(sessionId)}/exec`,
      { command, timeout, description: options.description },
      timeout * 1000 + sandboxTimeoutMarginMs,
    );
  }
  /**
   * Runs a shell command and yields its output as it comes (`output` events), then the `exit`
   * event (exit_code, timed_out, truncated, duration_ms). `timeout` may be up to 3600 s here.
   * Aborting `signal`, or leaving the loop early, kills the command.
   */
  execStream(
    sessionId: string,
    command: string,
    options: { timeout?: number; description?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<ExecEvent> {
    return streamExecEvents({
      url: `${this.baseUrl}/v1/sandboxes/${segment(sessionId)}/exec`,
      credential: this.#apiKey,
      fetchImpl: this.#transport.fetchImpl,
      body: { command, timeout: options.timeout ?? defaults.exec.timeout, description: options.description },
      signal: options.signal,
    });
  }
  /** An HTTP request made from inside the sandbox, through its egress policy. */
  httpRequest(sessionId: string, request: HttpRequestOptions) {
    const timeout = request.timeout ?? defaults.http_request.timeout;
    return this.#post<Output<"http_request">>(
      `/v1/sandboxes/${segment(sessionId)}/http-request`,
      {
        method: request.method ?? defaults.http_request.method,
        url: request.url,
        headers: request.headers ?? {},
        body: request.body ?? null,
        timeout,
      },
      timeout * 1000 + sandboxTimeoutMarginMs,
    );
  }

  // Files inside a sandbox (paths relative to /workspace, or absolute inside it, /tmp or a volume).
  /**
   * Writes a file. Text is sent as it is; a Uint8Array (or `encoding: "base64"` with base64
   * text) is written byte for byte. At most 10 MiB; larger files go through `uploadFile`.
   */
  fileCreate(
    sessionId: string,
    path: string,
    content: string | Uint8Array,
    options: { encoding?: FileEncoding } = {},
  ) {
    const bytes = typeof content !== "string";
    return this.#post<Output<"file_create">>(`/v1/sandboxes/${segment(sessionId)}/files`, {
      path,
      content: bytes ? toBase64(content) : content,
      encoding: bytes ? "base64" : (options.encoding ?? "utf-8"),
    });
  }
  /**
   * Reads a text file (a file that is not UTF-8 is refused with `file_not_utf8`), or with
   * `encoding: "base64"` any file's exact bytes, base64-encoded in `content`.
   */
  view(
    sessionId: string,
    path: string,
    options: { viewRange?: [number, number]; encoding?: FileEncoding } = {},
  ) {
    return this.#post<Output<"view">>(`/v1/sandboxes/${segment(sessionId)}/files/view`, {
      path,
      view_range: options.viewRange ?? null,
      encoding: options.encoding ?? "utf-8",
    });
  }
  /**
   * Writes bytes to a file through the raw route (PUT …/files/raw), streaming a ReadableStream as
   * it is read; at most 100 MiB. The timeout (default 10 minutes) covers the whole transfer.
   */
  uploadFile(
    sessionId: string,
    path: string,
    data: Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>,
    options: { timeoutMs?: number } = {},
  ) {
    return this.#raw({
      method: "PUT",
      path: rawPath(sessionId),
      query: { path },
      body: data,
      ...options,
    }).then((response) => response.json() as Promise<UploadFileResult>);
  }
  /** A file's exact bytes through the raw route (GET …/files/raw), read whole. */
  async downloadFile(
    sessionId: string,
    path: string,
    options: { timeoutMs?: number } = {},
  ): Promise<Uint8Array> {
    const response = await this.#raw({
      method: "GET",
      path: rawPath(sessionId),
      query: { path },
      ...options,
    });
    return new Uint8Array(await response.arrayBuffer());
  }
  /** A file's bytes as a stream, with their number, for files too large to hold (`cairn cp`). */
  async downloadFileStream(
    sessionId: string,
    path: string,
    options: { timeoutMs?: number } = {},
  ): Promise<{ size: number; stream: ReadableStream<Uint8Array> }> {
    const response = await this.#raw({
      method: "GET",
      path: rawPath(sessionId),
      query: { path },
      ...options,
    });
    const size = Number(response.headers.get("content-length") ?? Number.NaN);
    if (response.body === null) throw new CairnError(`GET ${rawPath(sessionId)}: the answer has no body`);
    return { size, stream: response.body };
  }
  #raw(call: RawCall) {
    return sendRaw(this.#transport, {
      ...call,
      credential: this.#apiKey,
      timeoutMs: call.timeoutMs ?? rawTransferTimeoutMs,
    });
  }
  strReplace(
    sessionId: string,
    path: string,
    oldStr: string,
    newStr: string,
    options: { replaceAll?: boolean } = {},
  ) {
    return this.#post<Output<"str_replace">>(`/v1/sandboxes/${segment(sessionId)}/files/str-replace`, {
      path,
      old_str: oldStr,
      new_str: newStr,
      replace_all: options.replaceAll ?? defaults.str_replace.replace_all,
    });
  }
  ls(sessionId: string, path: string = defaults.ls.path) {
    return this.#post<Output<"ls">>(`/v1/sandboxes/${segment(sessionId)}/files/ls`, { path });
  }
  glob(sessionId: string, pattern: string, options: { path?: string } = {}) {
    return this.#post<Output<"glob">>(`/v1/sandboxes/${segment(sessionId)}/files/glob`, {
      pattern,
      path: options.path ?? defaults.glob.path,
    });
  }
  grep(
    sessionId: string,
    pattern: string,
    options: { path?: string; glob?: string | null; maxMatches?: number } = {},
  ) {
    return this.#post<Output<"grep">>(`/v1/sandboxes/${segment(sessionId)}/files/grep`, {
      pattern,
      path: options.path ?? defaults.grep.path,
      glob: options.glob ?? null,
      max_matches: options.maxMatches ?? defaults.grep.max_matches,
    });
  }

  // Language servers inside a sandbox.
  lspStart(sessionId: string, language: string) {
    return this.#post<Output<"lsp_start">>(`/v1/sandboxes/${segment(sessionId)}/lsp/start`, { language });
  }
  lspOpen(sessionId: string, lspId: string, path: string, content: string) {
    return this.#post<Output<"lsp_open">>(`/v1/sandboxes/${segment(sessionId)}/lsp/${segment(lspId)}/open`, {
      path,
      content,
    });
  }
  lspCompletion(sessionId: string, lspId: string, path: string, line: number, character: number) {
    return this.#post<Output<"lsp_completion">>(
      `/v1/sandboxes/${segment(sessionId)}/lsp/${segment(lspId)}/completion`,
      {
        path,
        line,
        character,
      },
    );
  }
  lspStop(sessionId: string, lspId: string) {
    return this.#post<Output<"lsp_stop">>(
      `/v1/sandboxes/${segment(sessionId)}/lsp/${segment(lspId)}/stop`,
      {},
    );
  }

  // Previews and the takeover terminal (docs/sandboxes.md#previews, #takeover-terminal).
  /** A URL that reaches `port` inside the sandbox (HTTP and WebSocket) until `expires_at`. */
  preview(sessionId: string, port: number, options: { ttlSeconds?: number } = {}) {
    return this.#post<Output<"create_preview">>(`/v1/sandboxes/${segment(sessionId)}/preview/${port}`, {
      ...(options.ttlSeconds === undefined ? {} : { ttl_seconds: options.ttlSeconds }),
    });
  }
  /** Ends a preview URL; revoking one twice is no error. */
  revokePreview(sessionId: string, port: number, tokenId: string) {
    return this.#post<Output<"revoke_preview">>(
      `/v1/sandboxes/${segment(sessionId)}/preview/${port}/revoke`,
      { token_id: tokenId },
    );
  }
  listPreviews(sessionId: string) {
    return this.#get<Output<"list_previews">>(`/v1/sandboxes/${segment(sessionId)}/previews`);
  }
  /** A single-use token (60 s) for `GET /v1/sandboxes/{id}/takeover?token=…`, e.g. from a browser. */
  takeoverToken(sessionId: string, options: { readOnly?: boolean } = {}) {
    return this.#post<Output<"takeover_token">>(`/v1/sandboxes/${segment(sessionId)}/takeover-token`, {
      read_only: options.readOnly ?? false,
    });
  }
  /** What the takeover terminal was sent and showed (bounded). */
  takeoverRecording(sessionId: string) {
    return this.#get<Output<"takeover_recording">>(`/v1/sandboxes/${segment(sessionId)}/takeover/recording`);
  }
  /** The WebSocket URL of the sandbox's takeover terminal (for a token from `takeoverToken`). */
  takeoverUrl(sessionId: string, token: string, size: { rows?: number; cols?: number } = {}): string {
    const url = new URL(`/v1/sandboxes/${segment(sessionId)}/takeover`, this.baseUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("token", token);
    if (size.rows !== undefined) url.searchParams.set("rows", String(size.rows));
    if (size.cols !== undefined) url.searchParams.set("cols", String(size.cols));
    return url.toString();
  }

  // Background processes (docs/api.md#processes).
  startProcess(
    sessionId: string,
    command: string,
    options: { description?: string; maxRuntimeSeconds?: number | null } = {},
  ) {
    return this.#post<Output<"process_start">>(`/v1/sandboxes/${segment(sessionId)}/processes`, {
      command,
      ...(options.description === undefined ? {} : { description: options.description }),
      max_runtime_seconds: options.maxRuntimeSeconds ?? null,
    });
  }
  listProcesses(sessionId: string) {
    return this.#get<Output<"process_list">>(`/v1/sandboxes/${segment(sessionId)}/processes`);
  }
  getProcess(sessionId: string, processId: string) {
    return this.#get<Output<"process_get">>(
      `/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}`,
    );
  }
  /** Output from `sinceOffset` (0, then each answer's `next_offset`: nothing lost or repeated). */
  processOutput(
    sessionId: string,
    processId: string,
    options: { sinceOffset?: number; maxBytes?: number; waitSeconds?: number } = {},
  ) {
    const waitSeconds = options.waitSeconds ?? 0;
    return this.#send<Output<"process_output">>({
      method: "GET",
      path: `/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}/output`,
      query: {
        since_offset: options.sinceOffset ?? 0,
        max_bytes: options.maxBytes ?? defaults.process_output.max_bytes,
        wait_seconds: waitSeconds,
      },
      timeoutMs: waitSeconds > 0 ? waitSeconds * 1000 + sandboxTimeoutMarginMs : undefined,
    });
  }
  /** The output as events until the `exit` event, resuming across reconnections. */
  streamProcess(
    sessionId: string,
    processId: string,
    options: { sinceOffset?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ProcessEvent> {
    return streamProcessEvents({
      url: `${this.baseUrl}/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}/stream`,
      credential: this.#apiKey,
      fetchImpl: this.#transport.fetchImpl,
      sinceOffset: options.sinceOffset ?? 0,
      signal: options.signal,
    });
  }
  processInput(sessionId: string, processId: string, data: string, options: { eof?: boolean } = {}) {
    return this.#post<Output<"process_input">>(
      `/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}/input`,
      { data, eof: options.eof ?? false },
    );
  }
  stopProcess(sessionId: string, processId: string) {
    return this.#post<Output<"process_stop">>(
      `/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}/stop`,
      {},
      // SIGTERM, then SIGKILL after 5 s: the answer comes once it has ended.
      this.#transport.timeoutMs + 10_000,
    );
  }
  waitProcess(sessionId: string, processId: string, options: { timeoutSeconds?: number } = {}) {
    const timeoutSeconds = options.timeoutSeconds ?? defaults.process_wait.timeout_seconds;
    return this.#post<Output<"process_wait">>(
      `/v1/sandboxes/${segment(sessionId)}/processes/${segment(processId)}/wait`,
      { timeout_seconds: timeoutSeconds },
      timeoutSeconds * 1000 + sandboxTimeoutMarginMs,
    );
  }

  // Custom images, volumes, secrets and MCP connections.
  createImage(options: CreateImageOptions = {}) {
    return this.#post<Output<"create_sandbox_image">>("/v1/images", {
      label: options.label ?? null,
      base: options.base ?? defaults.create_sandbox_image.base,
      python_packages: options.pythonPackages ?? [],
      apt_packages: options.aptPackages ?? [],
      npm_packages: options.npmPackages ?? [],
    });
  }
  getImage(imageId: string) {
    return this.#get<Output<"get_sandbox_image">>(`/v1/images/${segment(imageId)}`);
  }
  listImages() {
    return this.#get<Output<"list_sandbox_images">>("/v1/images");
  }
  deleteImage(imageId: string) {
    return this.#delete(`/v1/images/${segment(imageId)}`);
  }
  createVolume(options: { sizeGb: number; label?: string | null }) {
    return this.#post<Output<"create_sandbox_volume">>("/v1/volumes", {
      size_gb: options.sizeGb,
      label: options.label ?? null,
    });
  }
  getVolume(volumeId: string) {
    return this.#get<Output<"get_sandbox_volume">>(`/v1/volumes/${segment(volumeId)}`);
  }
  listVolumes() {
    return this.#get<Output<"list_sandbox_volumes">>("/v1/volumes");
  }
  deleteVolume(volumeId: string) {
    return this.#delete(`/v1/volumes/${segment(volumeId)}`);
  }

  // Snapshots and the activity feed (docs/sandboxes.md#snapshots, #activity).
  createSnapshot(sessionId: string, options: { label?: string | null } = {}) {
    return this.#post<Output<"create_snapshot">>(`/v1/sandboxes/${segment(sessionId)}/snapshots`, {
      label: options.label ?? null,
    });
  }
  listSnapshots(sessionId: string) {
    return this.#get<Output<"list_snapshots">>(`/v1/sandboxes/${segment(sessionId)}/snapshots`);
  }
  getSnapshot(snapshotId: string) {
    return this.#get<Output<"get_snapshot">>(`/v1/snapshots/${segment(snapshotId)}`);
  }
  /** Needs an admin key (403 insufficient_role for a member key). */
  deleteSnapshot(snapshotId: string) {
    return this.#delete(`/v1/snapshots/${segment(snapshotId)}`);
  }
  /** A new sandbox whose files are the snapshot's. */
  restoreSnapshot(snapshotId: string, options: { label?: string | null } = {}) {
    return this.#post<Output<"restore_snapshot">>(`/v1/snapshots/${segment(snapshotId)}/restore`, {
      label: options.label ?? null,
    });
  }
  /** A page of the sandbox's activity, newest first. */
  sandboxLog(sessionId: string, options: { limit?: number; offset?: number } = {}) {
    return this.#get<Output<"sandbox_log">>(`/v1/sandboxes/${segment(sessionId)}/log`, {
      limit: options.limit ?? defaults.sandbox_log.limit,
      offset: options.offset ?? 0,
    });
  }
  /** New activity entries as they are recorded, until the sandbox ends or `signal` aborts. */
  watchSandbox(
    sessionId: string,
    options: { since?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<ActivityEntry> {
    return streamActivityEvents({
      url: `${this.baseUrl}/v1/sandboxes/${segment(sessionId)}/watch`,
      credential: this.#apiKey,
      fetchImpl: this.#transport.fetchImpl,
      since: options.since,
      signal: options.signal,
    });
  }
  createSecret(name: string, value: string, options: { allowedHosts?: string[] } = {}) {
    return this.#post<Output<"create_secret">>("/v1/secrets", {
      name,
      value,
      allowed_hosts: options.allowedHosts ?? [],
    });
  }
  listSecrets() {
    return this.#get<Output<"list_secrets">>("/v1/secrets");
  }
  deleteSecret(secretId: string) {
    return this.#delete(`/v1/secrets/${segment(secretId)}`);
  }
  createMcpConnection(options: { catalogId: string; label: string }) {
    return this.#post<Output<"create_mcp_connection">>("/v1/mcp-connections", {
      catalog_id: options.catalogId,
      label: options.label,
    });
  }
  listMcpConnections() {
    return this.#get<Output<"list_mcp_connections">>("/v1/mcp-connections");
  }
  deleteMcpConnection(connectionId: string) {
    return this.#delete(`/v1/mcp-connections/${segment(connectionId)}`);
  }

  // Memory.
  remember(content: string, options: RememberOptions = {}) {
    return this.#post<Output<"remember">>("/v1/memory", {
      content,
      scope: options.scope ?? defaults.remember.scope,
      kind: options.kind ?? defaults.remember.kind,
      metadata: options.metadata ?? {},
      source_session_id: options.sourceSessionId ?? null,
      importance: options.importance ?? defaults.remember.importance,
    });
  }
  /** Splits a longer text (a transcript, notes) into memories the server classifies. */
  ingestMemory(content: string, options: IngestOptions = {}) {
    return this.#post<Output<"ingest_memory">>("/v1/memory/ingest", {
      content,
      scope: options.scope ?? defaults.ingest_memory.scope,
      kind: options.kind ?? defaults.ingest_memory.kind,
      metadata: options.metadata ?? {},
      source_session_id: options.sourceSessionId ?? null,
    });
  }
  recall(query: string, options: { scope?: string; limit?: number } = {}) {
    return this.#get<Output<"recall">>("/v1/memory/search", {
      q: query,
      scope: options.scope,
      limit: options.limit ?? defaults.recall.limit,
    });
  }
  memoryProfile(options: { scope?: string; limit?: number } = {}) {
    return this.#get<Output<"memory_profile">>("/v1/memory/profile", {
      scope: options.scope,
      limit: options.limit ?? defaults.memory_profile.limit,
    });
  }
  listMemories(options: ListMemoriesOptions = {}) {
    return this.#get<Output<"list_memories">>("/v1/memory", {
      scope: options.scope,
      include_superseded: options.includeSuperseded ?? defaults.list_memories.include_superseded,
      limit: options.limit ?? defaults.list_memories.limit,
      offset: options.offset ?? defaults.list_memories.offset,
    });
  }
  getMemory(memoryId: string) {
    return this.#get<Output<"get_memory">>(`/v1/memory/${segment(memoryId)}`);
  }
  memoryRelations(memoryId: string, options: { limit?: number } = {}) {
    return this.#get<Output<"memory_relations">>(`/v1/memory/${segment(memoryId)}/relations`, {
      limit: options.limit ?? defaults.memory_relations.limit,
    });
  }
  forgetMemory(memoryId: string) {
    return this.#delete(`/v1/memory/${segment(memoryId)}`);
  }
  /** Every page of the export (the server answers in pages linked by `next_cursor`), as one payload. */
  async exportMemories(options: { scope?: string } = {}) {
    const path = "/v1/memory/export";
    let page = await this.#get<Output<"export_memories">>(path, { scope: options.scope });
    let { memories, relations } = page;
    while (page.next_cursor) {
      page = await this.#get<Output<"export_memories">>(path, {
        scope: options.scope,
        cursor: page.next_cursor,
      });
      memories = memories.concat(page.memories);
      relations = relations.concat(page.relations);
    }
    return { ...page, memories, relations };
  }
  /** An `exportMemories()` payload imports as it is: `importMemories(exported.memories, exported.relations)`. */
  importMemories(memories: ImportedMemory[], relations: ImportedRelation[] = []) {
    return this.#post<Output<"import_memories">>("/v1/memory/import", { memories, relations });
  }
  memoryMetrics(options: { scope?: string } = {}) {
    return this.#get<Output<"memory_metrics">>("/v1/memory/metrics", { scope: options.scope });
  }

  // Tools by name: the built-in operations and what plugins add, through one generic route.
  /** Every tool this server offers, built-in and from plugins, with its input and output JSON Schemas. */
  listTools() {
    return this.#get<ToolList>("/v1/tools");
  }
  /**
   * Calls a tool by its name (`recall`, `<plugin>.<tool>`) with its wire input; the server runs it
   * through the same checks as its own route and answers its output (`{}` for a route that answers
   * nothing). The result type is the caller's to assert: plugin tools are not known here.
   */
  callTool<Result = unknown>(
    name: string,
    input: Record<string, unknown> = {},
    options: CallToolOptions = {},
  ): Promise<Result> {
    // A sandbox-side `timeout` in the input (exec's, http_request's) gets the wait exec gets.
    const sandboxSeconds = typeof input.timeout === "number" && input.timeout > 0 ? input.timeout : null;
    return this.#send<Result>({
      method: "POST",
      path: `/v1/tools/${segment(name)}`,
      body: input,
      timeoutMs:
        options.timeoutMs ??
        (sandboxSeconds === null ? undefined : sandboxSeconds * 1000 + sandboxTimeoutMarginMs),
      headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : undefined,
    });
  }

  /**
   * Creates a sandbox, runs `work` with it, and destroys it afterwards, whatever `work` did. A
   * sandbox already gone (404) is fine; any other failure to destroy it is thrown, unless `work`
   * threw first: its error is the one that surfaces.
   */
  async withSandbox<T>(
    work: (sandbox: SandboxSession) => Promise<T>,
    options: CreateSandboxOptions = {},
  ): Promise<T> {
    const sandbox = await this.createSandbox(options);
    let result: T;
    try {
      result = await work(new SandboxSession(this, sandbox));
    } catch (error) {
      await this.#destroyIfThere(sandbox.id).catch(() => {});
      throw error;
    }
    await this.#destroyIfThere(sandbox.id);
    return result;
  }

  /** Destroys a sandbox; one already gone (expired, destroyed by the work) is not an error. */
  async #destroyIfThere(id: string): Promise<void> {
    try {
      await this.destroySandbox(id);
    } catch (error) {
      if (!(error instanceof CairnApiError && error.statusCode === 404)) throw error;
    }
  }
}

/** One sandbox's calls without repeating its id; `withSandbox` hands one to its callback. */
export class SandboxSession {
  readonly id: string;
  readonly sandbox: Sandbox;
  readonly #client: CairnClient;

  constructor(client: CairnClient, sandbox: Sandbox) {
    this.#client = client;
    this.sandbox = sandbox;
    this.id = sandbox.id;
  }

  exec(command: string, options?: { timeout?: number; description?: string }) {
    return this.#client.exec(this.id, command, options);
  }
  execStream(command: string, options?: { timeout?: number; description?: string; signal?: AbortSignal }) {
    return this.#client.execStream(this.id, command, options);
  }
  httpRequest(request: HttpRequestOptions) {
    return this.#client.httpRequest(this.id, request);
  }
  fileCreate(path: string, content: string | Uint8Array, options?: { encoding?: FileEncoding }) {
    return this.#client.fileCreate(this.id, path, content, options);
  }
  view(path: string, options?: { viewRange?: [number, number]; encoding?: FileEncoding }) {
    return this.#client.view(this.id, path, options);
  }
  uploadFile(
    path: string,
    data: Uint8Array | ArrayBuffer | Blob | ReadableStream<Uint8Array>,
    options?: { timeoutMs?: number },
  ) {
    return this.#client.uploadFile(this.id, path, data, options);
  }
  downloadFile(path: string, options?: { timeoutMs?: number }) {
    return this.#client.downloadFile(this.id, path, options);
  }
  downloadFileStream(path: string, options?: { timeoutMs?: number }) {
    return this.#client.downloadFileStream(this.id, path, options);
  }
  strReplace(path: string, oldStr: string, newStr: string, options?: { replaceAll?: boolean }) {
    return this.#client.strReplace(this.id, path, oldStr, newStr, options);
  }
  ls(path?: string) {
    return this.#client.ls(this.id, path);
  }
  glob(pattern: string, options?: { path?: string }) {
    return this.#client.glob(this.id, pattern, options);
  }
  grep(pattern: string, options?: { path?: string; glob?: string | null; maxMatches?: number }) {
    return this.#client.grep(this.id, pattern, options);
  }
  destroy() {
    return this.#client.destroySandbox(this.id);
  }
}
