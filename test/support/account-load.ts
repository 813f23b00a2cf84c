/**
 * Load from one account against a live server, for the two-account rate-limit test and
 * test/bench/load.ts. An account "at twice its limit" first spends its whole bucket back to back
 * (until the first 429), then sends at twice the bucket's refill rate for a window, open loop (a
 * request leaves on schedule whether or not the previous one has answered), so about half of the
 * window's requests find a token. A quiet account only sends, below its refill rate. Every answer
 * is checked against the contract: a success with the rate-limit headers, or a 429 `rate_limited`
 * with Retry-After.
 */

export interface AccountLoadSettings {
  baseUrl: string;
  key: string;
  /** The bucket's per-minute limit (its capacity; it refills limit/60 tokens a second). */
  limit: number;
  /** Spend the bucket back to back first (the noisy account). */
  burst: boolean;
  /** Requests a second during the window. */
  ratePerSecond: number;
  windowSeconds: number;
}

export interface AccountLoad {
  sent: number;
  allowed: number;
  refused: number;
  /** Answers that were neither a conformant success nor a conformant 429, described. */
  nonconforming: string[];
  /** Milliseconds from send to answer, of the window's requests (the burst left out). */
  latencies: number[];
  /** performance.now() bounds of the whole run, on the client: first send and answer, last send and answer. */
  firstSent: number;
  firstAnswered: number;
  lastSent: number;
  lastAnswered: number;
}

/** Why an answer breaks the contract (§4 of the wire contract), or null when it keeps it. */
async function conformance(response: Response, limit: number): Promise<string | null> {
  const headers = response.headers;
  if (headers.get("x-ratelimit-limit") !== String(limit))
    return `${response.status}: X-RateLimit-Limit ${headers.get("x-ratelimit-limit")}`;
  if (response.status === 201) {
    await response.body?.cancel();
    return /^\d+$/.test(headers.get("x-ratelimit-remaining") ?? "")
      ? null
      : "201 without X-RateLimit-Remaining";
  }
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; retryable?: boolean; details?: Record<string, unknown> };
  } | null;
  if (response.status !== 429) return `${response.status} ${JSON.stringify(body)}`;
  const retryAfter = headers.get("retry-after") ?? "";
  const error = body?.error;
  const conforms =
    /^[1-9]\d*$/.test(retryAfter) &&
    headers.get("x-ratelimit-remaining") === "0" &&
    error?.code === "rate_limited" &&
    error.retryable === true &&
    error.details?.bucket === "memory_ops" &&
    error.details?.limit === limit &&
    error.details?.retry_after_seconds === Number(retryAfter);
  return conforms ? null : `429 not as the contract says: Retry-After ${retryAfter}, ${JSON.stringify(body)}`;
}

/** Runs one account's load; resolves when every request it sent has been answered. */
export async function driveAccount(settings: AccountLoadSettings): Promise<AccountLoad> {
  const load: AccountLoad = {
    sent: 0,
    allowed: 0,
    refused: 0,
    nonconforming: [],
    latencies: [],
    firstSent: Number.NaN,
    firstAnswered: Number.NaN,
    lastSent: 0,
    lastAnswered: 0,
  };
  const send = async (window: boolean): Promise<number> => {
    const sentAt = performance.now();
    if (load.sent++ === 0) load.firstSent = sentAt;
    load.lastSent = Math.max(load.lastSent, sentAt);
    const response = await fetch(`${settings.baseUrl}/v1/memory`, {
      method: "POST",
      headers: { authorization: `Bearer ${settings.key}`, "content-type": "application/json" },
      body: JSON.stringify({ scope: "load", content: `Load note ${load.sent} from ${crypto.randomUUID()}` }),
    });
    const answeredAt = performance.now();
    if (Number.isNaN(load.firstAnswered)) load.firstAnswered = answeredAt;
    load.lastAnswered = Math.max(load.lastAnswered, answeredAt);
    if (window) load.latencies.push(answeredAt - sentAt);
    const problem = await conformance(response, settings.limit);
    if (problem !== null) load.nonconforming.push(problem);
    else if (response.status === 201) load.allowed++;
    else load.refused++;
    return response.status;
  };
  if (settings.burst) {
    // Bounded: a bucket never grants more than its capacity plus what refills meanwhile.
    for (let index = 0; index < settings.limit * 2; index++) if ((await send(false)) !== 201) break;
  }
  const interval = 1000 / settings.ratePerSecond;
  const count = Math.round(settings.windowSeconds * settings.ratePerSecond);
  const started = performance.now();
  const inFlight: Promise<number>[] = [];
  for (let index = 0; index < count; index++) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(true));
  }
  await Promise.all(inFlight);
  return load;
}

/**
 * The most and the fewest successes a token bucket allows over a run, from the client's timing:
 * the server saw the first request between its send and its answer, and the last one likewise,
 * so the refill lies between the inner and the outer span; a fraction of a token either way is
 * the stated tolerance (±1).
 */
export function bucketBounds(load: AccountLoad, limit: number): { fewest: number; most: number } {
  const perMillisecond = limit / 60_000;
  const inner = Math.max(0, load.lastSent - load.firstAnswered);
  const outer = load.lastAnswered - load.firstSent;
  return {
    fewest: Math.floor(limit + perMillisecond * inner) - 1,
    most: Math.ceil(limit + perMillisecond * outer) + 1,
  };
}

/** The 95th percentile (nearest rank) of a list of milliseconds. */
export function percentile95(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}
