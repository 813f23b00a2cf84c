/**
 * What an operation tells the loaded plugins: what happened in a sandbox, for the
 * `sandbox.destroyed` event (docs/plugins.md#hooks). The plugin host (core/plugins/plugin-host.ts)
 * implements it; operations see only this, not the host's queue and delivery.
 */
import type { SandboxActivity } from "./plugin-storage.ts";

export interface SandboxActivityRecorder {
  /** Adds to the sandbox's activity log when a loaded plugin hooks `sandbox.destroyed`; a failure is logged, not thrown. */
  recordActivity(sessionId: string, activity: SandboxActivity): Promise<void>;
}
