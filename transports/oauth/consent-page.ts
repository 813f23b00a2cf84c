/**
 * The login and consent page of the OAuth authorization endpoint: server-rendered HTML, one form,
 * no JavaScript. Every value written into it is escaped; the authorization request travels in
 * hidden fields and is checked again when the form comes back, with the CSRF token beside them.
 */
import type { AuthorizationRequest } from "../../core/index.ts";

const escapes: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => escapes[character]);

const style = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
.buttons{margin-top:1.2rem;display:flex;gap:.6rem}button{padding:.5rem 1rem}.error{color:#a40000;border:1px solid #a40000;padding:.5rem}
.note{color:#555;font-size:.9rem}code{word-break:break-all}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${style}</style></head>
<body>${body}</body></html>`;
}

/** The fields the form carries back: the authorization request as the client sent it. */
export function requestFields(request: AuthorizationRequest): Record<string, string> {
  return {
    response_type: "code",
    client_id: request.client.id,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
    resource: request.resource,
    scope: request.scope,
    ...(request.state === undefined ? {} : { state: request.state }),
  };
}

export function consentPage(options: {
  request: AuthorizationRequest;
  csrfToken: string;
  email?: string;
  error?: string;
}): string {
  const { request } = options;
  const hidden = Object.entries({ ...requestFields(request), csrf_token: options.csrfToken })
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join("\n");
  const destination = new URL(request.redirectUri);
  // A URL client id names itself: its host is what the name claims to be.
  const identity = request.client.id.startsWith("https://")
    ? `<p class="note">The application describes itself at <code>${escapeHtml(request.client.id)}</code>.</p>\n`
    : "";
  const error = options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : "";
  return page(
    "Connect to Cairn",
    `<h1>${escapeHtml(request.client.name)} wants to use your Cairn account</h1>
<p>If you approve, it may call Cairn's MCP tools for your account (memory and sandboxes), with the
same rights and limits as an API key, until you revoke it in your API key list.</p>
${identity}<p class="note">You will be sent back to <code>${escapeHtml(destination.origin)}</code>. Approve only if you
started this from that application.</p>
${error}
<form method="post" action="/oauth/authorize">
${hidden}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(options.email ?? "")}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password">
<div class="buttons">
<button type="submit" name="decision" value="approve">Log in and approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

/** An error the user sees because it cannot be sent to the client (no trusted redirect URI). */
export function errorPage(message: string): string {
  return page(
    "Cannot connect to Cairn",
    `<h1>Cannot connect to Cairn</h1><p class="error">${escapeHtml(message)}</p>`,
  );
}
