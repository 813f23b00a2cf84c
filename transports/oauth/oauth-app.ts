/**
 * Cairn's OAuth 2.1 authorization server for its own /mcp, as the MCP authorization
 * specification describes (docs/mcp.md#connecting-as-a-remote-connector-oauth): metadata of the
 * protected resource (RFC 9728) and of the server (RFC 8414) under `/.well-known`, and under
 * `/oauth` dynamic client registration (RFC 7591), the authorization endpoint with its login and
 * consent page, the token endpoint and revocation (RFC 7009). Mounted only while
 * SVC_MCP_OAUTH_ENABLED is on. Its errors are OAuth's own JSON (`{"error", "error_description"}`),
 * the wire format OAuth clients read, not Cairn's envelope.
 */
import { type Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import {
  authenticateOAuthClient,
  checkAuthorizationRequest,
  constantTimeEqual,
  createCaller,
  createOAuthClientDirectory,
  exchangeAuthorizationCode,
  issueAuthorizationCode,
  OAuthError,
  oauthScope,
  type Platform,
  randomSecret,
  redirectWith,
  refreshOAuthTokens,
  registerOAuthClient,
  registrationResponse,
  revokeOAuthToken,
  type ServiceError,
  tokenEndpointAuthMethods,
  toServiceError,
} from "../../core/index.ts";
import { consentPage, errorPage } from "./consent-page.ts";
import { oauthUrls } from "./oauth-urls.ts";

type Env = { Variables: { requestId: string } };

export interface OAuthAppOptions {
  clientIp(request: Request, environment: unknown): string;
}

/** A registration request is a few hundred bytes; this bounds what an unauthenticated caller may store. */
const maxRegistrationBytes = 16 * 1024;
const csrfCookie = "cairn_oauth_csrf";
const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** An OAuth error answer (RFC 6749 §5.2): 401 for a client that failed to authenticate, else 400. */
export function oauthErrorResponse(error: OAuthError, status?: number, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error: error.error, error_description: error.message }), {
    status: status ?? (error.error === "invalid_client" ? 401 : 400),
    headers: { "content-type": "application/json", ...noStore, ...headers },
  });
}

/** How a refusal made before the mount (the body limit) reads at /oauth. */
export function oauthMountErrorResponse(error: ServiceError, requestId: string): Response {
  const response = oauthErrorResponse(new OAuthError("invalid_request", error.message), 413);
  response.headers.set("X-Request-ID", requestId);
  return response;
}

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...noStore } });

/** A form body's fields (application/x-www-form-urlencoded), strings only. */
async function formFields(context: Context): Promise<Record<string, string | undefined>> {
  const type = context.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded"))
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
  const fields: Record<string, string | undefined> = {};
  for (const [name, value] of new URLSearchParams(await context.req.text())) fields[name] = value;
  return fields;
}

/** Client credentials from the body (client_secret_post, or a public client's id) or HTTP Basic. */
function clientCredentials(context: Context, fields: Record<string, string | undefined>) {
  const basic = context.req.header("authorization")?.match(/^basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (basic) {
    // RFC 6749 §2.3.1: each part form-urlencoded, then joined with a colon and base64-encoded.
    try {
      const decoded = atob(basic[1]);
      const colon = decoded.indexOf(":");
      if (colon >= 0)
        return {
          clientId: decodeURIComponent(decoded.slice(0, colon)),
          clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
        };
    } catch {
      // Not base64, or not percent-encoding: malformed like a Basic header without a colon.
    }
    throw new OAuthError("invalid_client", "Malformed Basic credentials");
  }
  return { clientId: fields.client_id, clientSecret: fields.client_secret };
}

export function createOAuthApps(platform: Platform, options: OAuthAppOptions) {
  const { config } = platform;
  const caller = createCaller(platform);
  const clients = createOAuthClientDirectory({
    repository: platform.storage.oauth,
    egress: platform.egress,
    logger: platform.logger,
    now: () => platform.clock.now(),
  });
  const wellKnown = new Hono<Env>();
  const oauth = new Hono<Env>();

  const onError = (thrown: Error, context: Context<Env>) => {
    if (thrown instanceof OAuthError) return oauthErrorResponse(thrown);
    const error = toServiceError(thrown);
    platform.logger.error(
      { requestId: context.get("requestId"), err: error.cause ?? thrown },
      "oauth request failed",
    );
    return oauthErrorResponse(new OAuthError("server_error", "The server could not answer"), 500);
  };
  wellKnown.onError(onError);
  oauth.onError(onError);

  const resourceMetadata = (context: Context<Env>) => {
    const urls = oauthUrls(context.req.raw, config);
    return context.json({
      resource: urls.resource,
      authorization_servers: [urls.issuer],
      scopes_supported: [oauthScope],
      bearer_methods_supported: ["header"],
      resource_name: "Cairn",
    });
  };
  wellKnown.get("/oauth-protected-resource", resourceMetadata);
  wellKnown.get("/oauth-protected-resource/mcp", resourceMetadata);
  wellKnown.get("/oauth-authorization-server", (context) => {
    const urls = oauthUrls(context.req.raw, config);
    return context.json({
      issuer: urls.issuer,
      authorization_endpoint: urls.authorization,
      token_endpoint: urls.token,
      registration_endpoint: urls.registration,
      revocation_endpoint: urls.revocation,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: [...tokenEndpointAuthMethods],
      revocation_endpoint_auth_methods_supported: [...tokenEndpointAuthMethods],
      scopes_supported: [oauthScope],
      // Fetched through the Egress port: public addresses only, 5 KiB, 5 s (oauth-client-documents.ts).
      client_id_metadata_document_supported: true,
    });
  });

  oauth.post("/register", async (context) => {
    const ip = options.clientIp(context.req.raw, context.env);
    const now = platform.clock.now();
    const limit = config.SVC_AUTH_RATE_LIMIT_PER_MINUTE;
    const decision = await platform.rateLimits.consume(`oauth_register:ip:${ip}`, limit, now);
    if (!decision.allowed)
      return oauthErrorResponse(
        new OAuthError(
          "temporarily_unavailable",
          `Too many registrations; retry in ${decision.retryAfterSeconds} s`,
        ),
        429,
        { "Retry-After": String(decision.retryAfterSeconds) },
      );
    const text = await context.req.text();
    if (new TextEncoder().encode(text).length > maxRegistrationBytes)
      throw new OAuthError(
        "invalid_client_metadata",
        `The registration request is over ${maxRegistrationBytes} bytes`,
      );
    let metadata: unknown;
    try {
      metadata = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_client_metadata", "The registration request is not valid JSON");
    }
    const registered = await registerOAuthClient(platform.storage.oauth, metadata, now);
    platform.logger.info({ clientId: registered.record.id }, "oauth client registered");
    return new Response(JSON.stringify(registrationResponse(registered)), {
      status: 201,
      headers: { "content-type": "application/json", ...noStore },
    });
  });

  /** Refuses an authorization request the way RFC 6749 §4.1.2.1 says: to the client when its redirect URI is trusted. */
  const refuse = (check: Exclude<Awaited<ReturnType<typeof checkAuthorizationRequest>>, { ok: true }>) => {
    if (check.redirectUri === null) return html(errorPage(check.error.message), 400);
    const location = redirectWith(check.redirectUri, {
      error: check.error.error,
      error_description: check.error.message,
      state: check.state,
    });
    return new Response(null, { status: 303, headers: { Location: location, ...noStore } });
  };

  /** The CSRF token: the cookie's (bound to this browser), or a new one set now. */
  const csrfToken = (context: Context<Env>) => {
    const existing = getCookie(context, csrfCookie);
    if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomSecret();
    setCookie(context, csrfCookie, token, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/oauth",
      maxAge: 3600,
      secure: new URL(oauthUrls(context.req.raw, config).issuer).protocol === "https:",
    });
    return token;
  };

  oauth.get("/authorize", async (context) => {
    const resource = oauthUrls(context.req.raw, config).resource;
    const check = await checkAuthorizationRequest(clients, context.req.query(), resource);
    if (!check.ok) return refuse(check);
    const token = csrfToken(context);
    return context.html(consentPage({ request: check.request, csrfToken: token }), 200, noStore);
  });

  oauth.post("/authorize", async (context) => {
    const fields = await formFields(context);
    const cookie = getCookie(context, csrfCookie);
    const sent = fields.csrf_token;
    if (cookie === undefined || sent === undefined || !constantTimeEqual(cookie, sent))
      return html(
        errorPage(
          "This form expired or did not come from this page. Go back to the application and connect again.",
        ),
        403,
      );
    const resource = oauthUrls(context.req.raw, config).resource;
    const check = await checkAuthorizationRequest(clients, fields, resource);
    if (!check.ok) return refuse(check);
    const { request } = check;
    const redirect = (parameters: Record<string, string | undefined>) =>
      new Response(null, {
        status: 303,
        headers: {
          Location: redirectWith(request.redirectUri, { ...parameters, state: request.state }),
          ...noStore,
        },
      });
    if (fields.decision !== "approve")
      return redirect({ error: "access_denied", error_description: "The user denied the request" });
    const again = (message: string, status: number) =>
      html(consentPage({ request, csrfToken: cookie, email: fields.email, error: message }), status);
    let accountId: string;
    try {
      // The login operation itself: its rate limit, failed-login guard and password check.
      const login = await caller(
        "login",
        { email: fields.email ?? "", password: fields.password ?? "" },
        { clientIp: options.clientIp(context.req.raw, context.env), requestId: context.get("requestId") },
      );
      accountId = login.account.id;
    } catch (thrown) {
      const error = toServiceError(thrown);
      if (error.code === "invalid_credentials") return again("Wrong email or password.", 401);
      if (error.code === "rate_limited") return again(error.message, 429);
      if (error.code === "validation_error") return again("Enter your email and password.", 400);
      throw thrown;
    }
    const code = await issueAuthorizationCode(
      platform.storage.oauth,
      request,
      accountId,
      platform.clock.now(),
    );
    platform.logger.info({ clientId: request.client.id }, "oauth authorization approved");
    return redirect({ code });
  });

  oauth.post("/token", async (context) => {
    const fields = await formFields(context);
    const client = await authenticateOAuthClient(clients, clientCredentials(context, fields));
    const now = platform.clock.now();
    let tokens: unknown;
    if (fields.grant_type === "authorization_code")
      tokens = await exchangeAuthorizationCode(platform.storage.oauth, client, fields, now);
    else if (fields.grant_type === "refresh_token")
      tokens = await refreshOAuthTokens(platform.storage.oauth, client, fields, now, platform.logger);
    else
      throw new OAuthError(
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token",
      );
    housekeeping(now);
    return new Response(JSON.stringify(tokens), {
      status: 200,
      headers: { "content-type": "application/json", ...noStore },
    });
  });

  oauth.post("/revoke", async (context) => {
    const fields = await formFields(context);
    const client = await authenticateOAuthClient(clients, clientCredentials(context, fields));
    await revokeOAuthToken(platform.storage.oauth, client, fields.token, platform.clock.now());
    return new Response(null, { status: 200, headers: noStore });
  });

  // Expired codes and tokens are dropped at most once an hour, beside a token request.
  let lastPurge = 0;
  function housekeeping(now: Date) {
    if (now.getTime() - lastPurge < 3_600_000) return;
    lastPurge = now.getTime();
    platform.storage.oauth
      .purgeExpired(now)
      .catch((error: unknown) =>
        platform.logger.warn({ err: error }, "expired OAuth codes and tokens were not purged"),
      );
  }

  return { wellKnown, oauth };
}
