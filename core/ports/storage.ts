import type { MemoryStore } from "./memory-store.ts";
import type { OAuthRepository } from "./oauth-storage.ts";
import type { PluginEventQueue, PluginStoreRepository, SandboxActivityLog } from "./plugin-storage.ts";
import type { PreviewLinkRepository } from "./preview-storage.ts";
import type { SandboxRuntimeName } from "./sandbox-runtime.ts";

/**
 * Storage ports: what services need from the database, one repository per aggregate. The
 * MikroORM plugin implements them for SQLite and PostgreSQL; the same repository tests run on both.
 */

export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  /** What the key may do (docs/api.md#api-key-roles): `member` keys cannot delete snapshots or mint takeover tokens. */
  role: ApiKeyRole;
}

export const apiKeyRoles = ["admin", "member"] as const;
export type ApiKeyRole = (typeof apiKeyRoles)[number];

export interface AccountRepository {
  /** Throws ServiceError `email_taken` when the (normalised) email exists. */
  create(input: { email: string; passwordHash: string; now: Date }): Promise<AccountRecord>;
  findByEmail(email: string): Promise<AccountRecord | null>;
  findById(id: string): Promise<AccountRecord | null>;
}

export interface ApiKeyRepository {
  create(input: {
    accountId: string;
    name: string;
    prefix: string;
    keyHash: string;
    now: Date;
    /** `admin` when absent. */
    role?: ApiKeyRole;
  }): Promise<ApiKeyRecord>;
  /** Newest first, revoked keys included. */
  list(accountId: string): Promise<ApiKeyRecord[]>;
  /** False when the key is unknown, another account's, or already revoked. */
  revoke(accountId: string, keyId: string, now: Date): Promise<boolean>;
  findActiveByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  touch(keyId: string, now: Date): Promise<void>;
}

export interface UsageFigures {
  activeSandboxes: number;
  totalSandboxesCreated: number;
  /** Sandbox seconds this calendar month (UTC), counting running sessions up to `now`. */
  monthlySandboxSeconds: number;
}

export interface UsageRepository {
  figures(accountId: string, now: Date): Promise<UsageFigures>;
}

export interface SandboxSessionRecord {
  id: string;
  accountId: string;
  status: "active" | "destroyed";
  label: string | null;
  size: "small" | "medium" | "large";
  storageGb: number | null;
  runtime: SandboxRuntimeName;
  podName: string | null;
  connectNote: string | null;
  imageId: string | null;
  grants: SessionGrants;
  createdAt: Date;
  expiresAt: Date;
  destroyedAt: Date | null;
  endedReason: "destroyed" | "expired" | null;
}

export interface SessionGrants {
  secretNames: string[];
  mcpConnectionNames: string[];
  volumeMounts: Record<string, string>;
  egressHosts: string[];
}

export interface CapacityFigures {
  /** Active, unexpired sessions of the account. */
  active: number;
  /** Active, unexpired sessions of the whole deployment. */
  globalActive: number;
  monthlySandboxSeconds: number;
}

export interface SandboxSessionRepository {
  /**
   * Serialises creates (per deployment), reads the capacity figures, asks `decide` and, when it
   * returns null, inserts the sessions; so two creates racing for the last slot cannot both win.
   */
  reserve(
    accountId: string,
    sessions: SandboxSessionRecord[],
    now: Date,
    decide: (figures: CapacityFigures) => Error | null,
  ): Promise<void>;
  /** Removes sessions whose runtime never started (nothing is billed for them). */
  discard(ids: string[]): Promise<void>;
  setConnection(id: string, podName: string | null, note: string): Promise<void>;
  get(accountId: string, id: string): Promise<SandboxSessionRecord | null>;
  /** A session by id alone, for background work that acts for no caller (the plugin host's events). */
  getById(id: string): Promise<SandboxSessionRecord | null>;
  list(accountId: string, activeOnly: boolean): Promise<SandboxSessionRecord[]>;
  /**
   * Marks an active session ended; false when it was not active (another replica or request won).
   * `announce` marks, in the same write, that its `sandbox.destroyed` event is still to be queued.
   */
  end(id: string, reason: "destroyed" | "expired", at: Date, announce?: boolean): Promise<boolean>;
  /** Ended sessions whose event `end` promised is not queued yet (a crash came between). */
  unannouncedEnds(): Promise<SandboxSessionRecord[]>;
  /** The session's event is queued. */
  endAnnounced(id: string): Promise<void>;
  /** Active sessions whose expiry has passed. */
  expired(now: Date): Promise<SandboxSessionRecord[]>;
  /** Every active session (start-up re-adoption). */
  allActive(): Promise<SandboxSessionRecord[]>;
}

export interface AllowlistRepository {
  get(accountId: string): Promise<unknown[]>;
  set(accountId: string, rules: unknown[], now: Date): Promise<void>;
  clear(accountId: string): Promise<void>;
}

export interface SecretRecord {
  id: string;
  accountId: string;
  name: string;
  encryptedValue: string;
  allowedHosts: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface SecretRepository {
  /** Throws ServiceError `secret_name_taken` or `secret_limit_reached`; the limit is checked atomically. */
  create(record: SecretRecord, limit: number): Promise<void>;
  list(accountId: string): Promise<SecretRecord[]>;
  findByNames(accountId: string, names: string[]): Promise<SecretRecord[]>;
  delete(accountId: string, id: string): Promise<boolean>;
  touch(accountId: string, names: string[], now: Date): Promise<void>;
}

export type VolumeStatus = "queued" | "creating" | "ready" | "failed" | "deleting";

export interface VolumeRecord {
  id: string;
  accountId: string;
  label: string | null;
  sizeGb: number;
  status: VolumeStatus;
  /** The runtime's claim name (Kubernetes); null on the local runtime. */
  pvcName: string | null;
  failureReason: string | null;
  createdAt: Date;
}

export interface VolumeRepository {
  /**
   * Inserts a volume; throws ServiceError `volume_limit_reached` when the account already holds
   * `limit` volumes that are not being deleted (checked atomically).
   */
  create(record: VolumeRecord, limit: number): Promise<void>;
  get(accountId: string, id: string): Promise<VolumeRecord | null>;
  /** Newest first. */
  list(accountId: string): Promise<VolumeRecord[]>;
  findByIds(accountId: string, ids: string[]): Promise<VolumeRecord[]>;
  /** Sets the outcome of provisioning. */
  settle(
    id: string,
    outcome: { status: "ready" | "failed"; pvcName: string | null; failureReason: string | null },
  ): Promise<void>;
  /** Moves a volume from one status to another; false when it was not in `from` (someone else won). */
  transition(accountId: string, id: string, from: VolumeStatus[], to: VolumeStatus): Promise<boolean>;
  delete(accountId: string, id: string): Promise<boolean>;
}

/** A snapshot of a sandbox's disk (docs/sandboxes.md#snapshots); immutable once `ready`. */
export interface SnapshotRecord {
  id: string;
  accountId: string;
  /** The sandbox it was taken of (which may have ended since). */
  sessionId: string;
  label: string | null;
  /** The source sandbox's size and storage, which a restore gets. */
  size: SandboxSessionRecord["size"];
  storageGb: number | null;
  imageId: string | null;
  runtime: SandboxRuntimeName;
  status: "creating" | "ready";
  sizeBytes: number;
  /** The runtime's name for it (SnapshotTaken.handle). */
  handle: string | null;
  createdAt: Date;
}

export interface SnapshotRepository {
  /** Inserts a snapshot; ServiceError `snapshot_limit_reached` when the account holds `limit` (checked atomically). */
  create(record: SnapshotRecord, limit: number): Promise<void>;
  /** Marks a snapshot taken: ready, with its size and handle. */
  settle(id: string, taken: { sizeBytes: number; handle: string | null }): Promise<void>;
  get(accountId: string, id: string): Promise<SnapshotRecord | null>;
  /** Newest first; only those of one sandbox when `sessionId` is given. */
  list(accountId: string, sessionId?: string): Promise<SnapshotRecord[]>;
  delete(accountId: string, id: string): Promise<boolean>;
}

export interface McpConnectionRecord {
  id: string;
  accountId: string;
  label: string;
  catalogId: string;
  host: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface McpConnectionRepository {
  /** Throws ServiceError `mcp_connection_label_taken` or `mcp_connection_limit_reached` (checked atomically). */
  create(record: McpConnectionRecord, limit: number): Promise<void>;
  /** Newest first. */
  list(accountId: string): Promise<McpConnectionRecord[]>;
  findByLabels(accountId: string, labels: string[]): Promise<McpConnectionRecord[]>;
  delete(accountId: string, id: string): Promise<boolean>;
  touch(accountId: string, labels: string[], now: Date): Promise<void>;
}

export type ImageStatus = "queued" | "building" | "completed" | "failed";

/** A custom sandbox image: a declarative spec and the outcome of building it (docs/api.md#images). */
export interface ImageRecord {
  id: string;
  accountId: string;
  label: string | null;
  base: string;
  pythonPackages: string[];
  aptPackages: string[];
  npmPackages: string[];
  /** SHA-256 of the canonical spec: equal specs build the same thing. */
  specHash: string;
  status: ImageStatus;
  /** Content hash of the built layer (`sha256:<hex>`). */
  digest: string | null;
  /** Kubernetes: the built image's reference; null locally. */
  registryRef: string | null;
  /** Local runtime: the layer directory on the host; null on Kubernetes. */
  layerPath: string | null;
  failureReason: string | null;
  buildLogTail: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface ImageBuildOutcome {
  status: "completed" | "failed";
  digest: string | null;
  registryRef: string | null;
  layerPath: string | null;
  failureReason: string | null;
  buildLogTail: string | null;
  completedAt: Date;
}

export interface ImageRepository {
  /**
   * Inserts an image; checked atomically with the insert: ServiceError `image_build_limit_reached`
   * when the account holds `limits.perAccount` images, and, for a record that still needs a build
   * (status queued), `global_build_capacity_reached` when `limits.globalInFlight` builds are
   * queued or building in the whole deployment.
   */
  create(record: ImageRecord, limits: { perAccount: number; globalInFlight: number }): Promise<void>;
  get(accountId: string, id: string): Promise<ImageRecord | null>;
  /** Newest first. */
  list(accountId: string): Promise<ImageRecord[]>;
  /** The account's newest completed image of this spec finished at or after `since`, for reuse. */
  findReusable(accountId: string, specHash: string, since: Date): Promise<ImageRecord | null>;
  /** Moves queued → building and returns the image; null when it is gone or someone else claimed it. */
  claim(id: string): Promise<ImageRecord | null>;
  /** Records a build's outcome on a building image; false when it was deleted meanwhile. */
  settle(id: string, outcome: ImageBuildOutcome): Promise<boolean>;
  /** Start-up: images left building by a stopped server go back to queued; returns every queued id. */
  requeueInterrupted(): Promise<string[]>;
  delete(accountId: string, id: string): Promise<boolean>;
}

export type IdempotencyClaim =
  | { state: "claimed" }
  | { state: "in_progress" }
  | { state: "mismatch" }
  | { state: "completed"; status: number; contentType: string; body: string };

/**
 * Idempotency-Key records (docs/api.md#idempotency-keys): one per (credential, method, path,
 * key), kept 24 hours.
 */
export interface IdempotencyStore {
  /** Claims the key for this request, or reports the earlier request that holds it. */
  claim(scopeKey: string, requestHash: string, now: Date): Promise<IdempotencyClaim>;
  complete(scopeKey: string, response: { status: number; contentType: string; body: string }): Promise<void>;
  /** Frees the key after a failure (5xx), so the client's retry runs again. */
  release(scopeKey: string): Promise<void>;
}

export interface Storage {
  readonly dialect: "sqlite" | "postgresql";
  readonly idempotency: IdempotencyStore;
  readonly memories: MemoryStore;
  readonly sandboxSessions: SandboxSessionRepository;
  readonly allowlists: AllowlistRepository;
  readonly secrets: SecretRepository;
  readonly volumes: VolumeRepository;
  readonly snapshots: SnapshotRepository;
  readonly mcpConnections: McpConnectionRepository;
  readonly images: ImageRepository;
  /** Plugins' key-value stores (docs/plugins.md#store). */
  readonly pluginStore: PluginStoreRepository;
  /** The durable queue of plugin hook deliveries (docs/plugins.md#hooks). */
  readonly pluginEvents: PluginEventQueue;
  /** Sandboxes' recent commands and touched files, for `sandbox.destroyed`. */
  readonly sandboxActivity: SandboxActivityLog;
  /**
   * Runs a background job on one replica at a time (a PostgreSQL advisory lock; on SQLite there
   * is one process). Returns false without running when another replica holds the job.
   */
  runExclusive(job: string, work: () => Promise<void>): Promise<boolean>;
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  /** The OAuth authorization server's clients, codes, grants and tokens (SVC_MCP_OAUTH_ENABLED). */
  readonly oauth: OAuthRepository;
  /** Sandbox preview links, shared by every replica (docs/sandboxes.md#previews). */
  readonly previewLinks: PreviewLinkRepository;
  readonly usage: UsageRepository;
  /** Deployment-wide gauges for /metrics. */
  gauges(
    now: Date,
  ): Promise<{ activeSandboxes: number; memoriesStored: number; memoryLinkJobsQueued: number }>;
  /** Cheap connectivity check for /health/ready. */
  ping(): Promise<boolean>;
  /**
   * Told after memory writes commit, for the database's own upkeep (SQLite's log emptied after a
   * forget, PostgreSQL's memory tables vacuumed after a burst of links). Absent: none needed.
   */
  readonly upkeep?: { afterForget?(): void; afterLink?(linked: number): void };
  close(): Promise<void>;
}
