/**
 * Work waiting for a worker thread, queued per account and served in turns: the account with the
 * fewest items running goes first, among equals the one served longest ago. So one account's
 * eight clients queue behind each other, not in front of a second account's one request
 * (the pattern threads, pattern-threads.ts; the search threads, memory-search-threads.ts).
 * Accounts with nothing running or waiting are forgotten: the maps hold only accounts in play.
 */
export interface AccountTurns<Item> {
  /** Whether anything waits. */
  readonly waiting: boolean;
  enqueue(accountId: string, item: Item): void;
  /** The item whose turn it is, counted as running until `finished`; null when nothing waits. */
  take(): { accountId: string; item: Item } | null;
  /** One item of the account, taken before, has ended. */
  finished(accountId: string): void;
  /** Removes and returns every waiting item. */
  drain(): Item[];
}

export function createAccountTurns<Item>(): AccountTurns<Item> {
  const queues = new Map<string, Item[]>();
  const running = new Map<string, number>();
  // When each account last had an item taken (a counter, not a time).
  const lastServed = new Map<string, number>();
  let served = 0;

  const forgetIdle = (accountId: string) => {
    if (!running.has(accountId) && !queues.has(accountId)) lastServed.delete(accountId);
  };

  /** The account whose turn it is: fewest items running, then served longest ago. */
  const nextAccount = (): string | null => {
    let best: string | null = null;
    for (const accountId of queues.keys()) {
      if (best === null) best = accountId;
      else {
        const order =
          (running.get(accountId) ?? 0) - (running.get(best) ?? 0) ||
          (lastServed.get(accountId) ?? -1) - (lastServed.get(best) ?? -1);
        if (order < 0) best = accountId;
      }
    }
    return best;
  };

  return {
    get waiting() {
      return queues.size > 0;
    },
    enqueue(accountId, item) {
      const queue = queues.get(accountId);
      if (queue) queue.push(item);
      else queues.set(accountId, [item]);
    },
    take() {
      const accountId = nextAccount();
      if (accountId === null) return null;
      const queue = queues.get(accountId) as Item[];
      const item = queue.shift() as Item;
      if (queue.length === 0) queues.delete(accountId);
      running.set(accountId, (running.get(accountId) ?? 0) + 1);
      lastServed.set(accountId, served++);
      return { accountId, item };
    },
    finished(accountId) {
      const stillRunning = (running.get(accountId) ?? 1) - 1;
      if (stillRunning > 0) running.set(accountId, stillRunning);
      else running.delete(accountId);
      forgetIdle(accountId);
    },
    drain() {
      const items = [...queues.values()].flat();
      queues.clear();
      for (const accountId of [...lastServed.keys()]) forgetIdle(accountId);
      return items;
    },
  };
}
