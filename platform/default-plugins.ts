/**
 * The built-in plugins, one per folder of plugins/, each offering implementations of core's ports
 * (docs/plugins.md#ports). The composition root serves them, then the plugins SVC_PLUGINS names.
 */
import type { Plugin } from "../core/index.ts";
import embeddings from "../plugins/embeddings/plugin.ts";
import httpEgress from "../plugins/http-egress/plugin.ts";
import imageBuilderLocal from "../plugins/image-builder-local/plugin.ts";
import passwords from "../plugins/passwords/plugin.ts";
import rateLimit from "../plugins/rate-limit/plugin.ts";
import sandboxKubernetes from "../plugins/sandbox-kubernetes/plugin.ts";
import sandboxLocal from "../plugins/sandbox-local/plugin.ts";
import storage from "../plugins/storage/plugin.ts";

export const defaultPlugins: readonly Plugin[] = [
  storage,
  rateLimit,
  passwords,
  httpEgress,
  embeddings,
  sandboxLocal,
  sandboxKubernetes,
  imageBuilderLocal,
];
