/**
 * Walks over a sandbox's files (grep, glob) taking turns per account: at most `walksPerAccount`
 * of one account's run at once, the rest wait in the order they came. Each walk holds up to
 * 20,000 entries on the serving thread; eight clients of one account walking at once kept eight
 * such lists alive and their collections stopped the thread for every account. Another account's
 * walk never waits behind them.
 */

export const walksPerAccount = 2;

interface AccountWalks {
  running: number;
  waiting: Array<() => void>;
}

const accounts = new Map<string, AccountWalks>();

export async function inWalkTurn<T>(accountId: string, work: () => Promise<T>): Promise<T> {
  let walks = accounts.get(accountId);
  if (walks === undefined) {
    walks = { running: 0, waiting: [] };
    accounts.set(accountId, walks);
  }
  const own = walks;
  // A walk that ends hands its place to the next one waiting, so `running` counts both.
  if (own.running < walksPerAccount) own.running += 1;
  else await new Promise<void>((resolve) => own.waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = own.waiting.shift();
    if (next !== undefined) next();
    else {
      own.running -= 1;
      if (own.running === 0) accounts.delete(accountId);
    }
  }
}
