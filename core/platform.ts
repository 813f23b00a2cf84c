/**
 * Everything a deployment runs on: what operations reach (`PlatformServices`), the operations it
 * serves, the whole plugin host, and how it stops. `createPlatform` (in platform/, the composition
 * root) fills it from configuration; tests fill it with whatever they need. Transports walk
 * `tools`; a handler sees only the services. No core file but the root entry imports this one, so
 * it may name anything without closing an import cycle.
 */
import type { PlatformServices } from "./platform-services.ts";
import type { PluginHost } from "./plugins/plugin-host.ts";
import type { ToolRegistry } from "./tool.ts";

export interface Platform extends PlatformServices {
  /** The operations this deployment serves: built-ins and loaded plugins' tools. */
  readonly tools: ToolRegistry;
  /** The loaded plugins' events: enqueued by operations, delivered to hooks (docs/plugins.md#hooks). */
  readonly plugins: PluginHost;
  close(): Promise<void>;
}
