/**
 * Preview traffic (docs/sandboxes.md#previews): requests to `/v1/previews/{token}/…`, or, with
 * SVC_PREVIEW_DOMAIN, to `{port}-{sandbox id}.<domain>/{token}/…`, proxied to the port inside
 * the sandbox through its relay (core/sandboxes/previews). The token in the path is the whole
 * authorization: an unknown, expired or revoked one, or one of a sandbox that is no longer active,
 * is 404 like any unknown path. Each request takes a token of the account's `preview_traffic`
 * bucket. Upgrades (WebSocket) are passed through raw by the server entry (upgrades.ts).
 */
import type { Context, Hono } from "hono";
import {
  type Config,
  type Platform,
  type PreviewRecord,
  previewExchange,
  previewTrafficPerMinute,
  ServiceError,
} from "../../core/index.ts";

export const previewPrefix = "/v1/previews/";

/**
 * The request without a Cairn API key in its Authorization header: one sent by habit (an SDK,
 * curl) never reaches the tenant's server. An app's own Authorization passes.
 */
export function withoutCairnKey(request: Request): Request {
  if (!/^bearer\s+cairn_/i.test(request.headers.get("authorization") ?? "")) return request;
  const headers = new Headers(request.headers);
  headers.delete("authorization");
  // `duplex` lets a streamed body pass (Node asks for it; the type does not know it yet).
  return new Request(request, { headers, duplex: "half" } as RequestInit);
}

/** Where a request is aimed, if it is preview traffic: its token and the path for the sandbox server. */
export function previewTarget(
  request: Request,
  config: Config,
): { token: string; target: string; host?: { port: number; sessionId: string } } | null {
  const url = new URL(request.url);
  const domain = config.SVC_PREVIEW_DOMAIN;
  const hostHeader = (request.headers.get("host") ?? url.host).toLowerCase().replace(/:\d+$/, "");
  if (domain !== undefined && hostHeader.endsWith(`.${domain.toLowerCase()}`)) {
    const match = /^(\d{1,5})-([0-9a-f-]{1,64})$/.exec(hostHeader.slice(0, -domain.length - 1));
    if (!match) return null;
    const [, token = "", ...rest] = url.pathname.split("/");
    return {
      token,
      target: `/${rest.join("/")}${url.search}`,
      host: { port: Number(match[1]), sessionId: match[2] ?? "" },
    };
  }
  if (!url.pathname.startsWith(previewPrefix)) return null;
  const [token = "", ...rest] = url.pathname.slice(previewPrefix.length).split("/");
  return { token, target: `/${rest.join("/")}${url.search}` };
}

/** The link's record if it may be used now (unrevoked, unexpired, sandbox active, bucket not empty). */
export async function authorizePreview(
  platform: Platform,
  aimed: NonNullable<ReturnType<typeof previewTarget>>,
): Promise<PreviewRecord> {
  const record = await platform.previews.resolve(aimed.token);
  const notFound = new ServiceError("not_found", "Not found");
  if (!record) throw notFound;
  if (aimed.host && (aimed.host.port !== record.port || aimed.host.sessionId !== record.sessionId))
    throw notFound;
  // No further storage read: a link never outlives its sandbox's expiry (create caps it), and the
  // link's lookup refuses the links of a sandbox that ended (core/sandboxes/previews/previews.ts
  // says how soon a change made through another replica is seen).
  const now = platform.clock.now();
  const decision = await platform.rateLimits.consume(
    `preview_traffic:${record.accountId}`,
    previewTrafficPerMinute,
    now,
  );
  if (!decision.allowed) {
    throw new ServiceError(
      "rate_limited",
      `Rate limit exceeded for preview_traffic; retry in ${decision.retryAfterSeconds} s`,
      {
        details: {
          bucket: "preview_traffic",
          limit: previewTrafficPerMinute,
          retry_after_seconds: decision.retryAfterSeconds,
        },
      },
    );
  }
  return record;
}

async function proxy(platform: Platform, context: Context): Promise<Response | undefined> {
  const aimed = previewTarget(context.req.raw, platform.config);
  if (!aimed) return undefined;
  const record = await authorizePreview(platform, aimed);
  const connection = await platform.previews.connect(platform.sandboxRuntime, record.sessionId, record.port);
  return previewExchange(connection, withoutCairnKey(context.req.raw), aimed.target, record.port);
}

export function mountPreviewRoutes(
  app: Hono<{ Variables: { requestId: string } }>,
  platform: Platform,
): void {
  if (platform.config.SVC_PREVIEW_DOMAIN !== undefined) {
    app.use(async (context, next) => (await proxy(platform, context)) ?? next());
  }
  app.all(
    `${previewPrefix}:token/*`,
    async (context) => (await proxy(platform, context)) ?? context.notFound(),
  );
  app.all(`${previewPrefix}:token`, (context) =>
    context.redirect(`${new URL(context.req.url).pathname}/`, 308),
  );
}
