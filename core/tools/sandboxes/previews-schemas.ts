/** Shared pieces of the preview operations (docs/sandboxes.md#previews). */
import { z } from "zod";
import type { Config } from "../../config.ts";
import type { PreviewRecord } from "../../sandboxes/previews/previews.ts";

export const previewPort = z.number().int().min(1).max(65_535).describe("Port inside the sandbox");

export const previewOut = z.object({
  url: z.string(),
  expires_at: z.string(),
  token_id: z.string(),
  port: z.number().int(),
});

export const previewSummaryOut = z.object({
  token_id: z.string(),
  port: z.number().int(),
  created_at: z.string(),
  expires_at: z.string(),
});

/** Where a preview link points: under /v1/previews, or a host of SVC_PREVIEW_DOMAIN. */
export function previewUrl(config: Config, record: PreviewRecord, token: string): string {
  const origin = config.SVC_PUBLIC_URL ?? `http://${previewHost(config.SVC_HOST)}:${config.SVC_PORT}`;
  if (config.SVC_PREVIEW_DOMAIN !== undefined) {
    const scheme = new URL(origin).protocol;
    return `${scheme}//${record.port}-${record.sessionId}.${config.SVC_PREVIEW_DOMAIN}/${token}/`;
  }
  return `${origin.replace(/\/$/, "")}/v1/previews/${token}/`;
}

function previewHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

export const toPreviewSummary = (record: PreviewRecord): z.input<typeof previewSummaryOut> => ({
  token_id: record.tokenId,
  port: record.port,
  created_at: record.createdAt.toISOString(),
  expires_at: record.expiresAt.toISOString(),
});
