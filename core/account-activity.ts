/**
 * Which accounts this server is serving now, so that one account's bulk work can give way to the
 * others' requests where the server cannot prioritise it otherwise: a bulk statement's CPU is
 * spent by PostgreSQL's backend, which shares the cores with every other account's backend and
 * takes no priority from SQL. Counted per process (a worker thread sees none), for requests that
 * ran through `invoke` with an account.
 */

/** An account that finished a request this recently still counts as being served (its next call is on its way). */
const recentMilliseconds = 100;

const inFlight = new Map<string, number>();
const finishedAt = new Map<string, number>();

/** Notes a request of the account as started; call the returned function when it ends. */
export function requestStarted(accountId: string): () => void {
  inFlight.set(accountId, (inFlight.get(accountId) ?? 0) + 1);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    const left = (inFlight.get(accountId) ?? 1) - 1;
    if (left > 0) inFlight.set(accountId, left);
    else inFlight.delete(accountId);
    const now = performance.now();
    finishedAt.set(accountId, now);
    // Kept to the accounts of the last moment, whether or not anyone asks (SQLite never does).
    for (const [other, at] of finishedAt) if (now - at > recentMilliseconds) finishedAt.delete(other);
  };
}

/** Whether an account other than this one has a request in flight, or finished one a moment ago. */
export function othersBeingServed(accountId: string, now = performance.now()): boolean {
  for (const other of inFlight.keys()) if (other !== accountId) return true;
  for (const [other, at] of finishedAt) {
    if (now - at > recentMilliseconds) finishedAt.delete(other);
    else if (other !== accountId) return true;
  }
  return false;
}
