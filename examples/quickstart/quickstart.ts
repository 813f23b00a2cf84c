/**
 * Quickstart story: sign up, get an API key, remember and recall a fact, run a command in a
 * sandbox and read a file back. Plain fetch against a running server:
 *   npm start                                  # in one terminal
 *   npx node examples/quickstart/quickstart.ts # in another (CAIRN_BASE_URL to point elsewhere)
 */
const baseUrl = (process.env.CAIRN_BASE_URL ?? "http://127.0.0.1:8090").replace(/\/+$/, "");
const parsed = new URL(baseUrl);
if (parsed.protocol !== "https:" && !["localhost", "127.0.0.1"].includes(parsed.hostname)) {
  console.error(`Refusing ${baseUrl}: use https, or http only on localhost / 127.0.0.1`);
  process.exit(1);
}

async function call<T>(method: string, path: string, credential: string | null, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    throw new Error(`${method} ${path}: ${error.message} [${error.code}] (HTTP ${response.status})`);
  }
  return (response.status === 204 ? null : await response.json()) as T;
}

const email = `quickstart-${crypto.randomUUID().slice(0, 8)}@example.com`;
const { access_token: token } = await call<{ access_token: string }>("POST", "/v1/auth/signup", null, {
  email,
  password: "quickstart password",
});
const { key } = await call<{ key: string }>("POST", "/v1/api-keys", token, { name: "quickstart" });
console.log(`signed up ${email} and created an API key`);

await call("POST", "/v1/memory", key, {
  content: "The team prefers pnpm over npm for new projects.",
  kind: "preference",
});
const recalled = await call<{ memories: Array<{ content: string; score: number }> }>(
  "GET",
  `/v1/memory/search?q=${encodeURIComponent("which package manager does the team prefer")}`,
  key,
);
console.log(`recalled: ${recalled.memories[0]?.content} (score ${recalled.memories[0]?.score})`);

const sandbox = await call<{ id: string }>("POST", "/v1/sandboxes", key, { label: "quickstart" });
try {
  await call("POST", `/v1/sandboxes/${sandbox.id}/files`, key, {
    path: "hello.sh",
    content: "echo hello from $(hostname)\n",
  });
  const ran = await call<{ exit_code: number; stdout: string }>(
    "POST",
    `/v1/sandboxes/${sandbox.id}/exec`,
    key,
    {
      command: "sh hello.sh",
    },
  );
  console.log(`sandbox said: ${ran.stdout.trim()} (exit ${ran.exit_code})`);
} finally {
  await call("DELETE", `/v1/sandboxes/${sandbox.id}`, key);
}
console.log("sandbox destroyed");
