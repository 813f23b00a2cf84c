/** The account screen's data: who the key belongs to and the usage figures, refreshed on demand. */
import type { CairnClient } from "cairn-client";
import { useCallback, useEffect, useState } from "react";
import { describeError } from "./describe-error.ts";

export type Account = Awaited<ReturnType<CairnClient["account"]>>;
export type Usage = Awaited<ReturnType<CairnClient["usage"]>>;

const refreshIntervalMs = 10_000;

export interface AccountState {
  account: Account | null;
  usage: Usage | null;
  loading: boolean;
  error: string | null;
}

export function useAccount(client: CairnClient, active: boolean) {
  const [state, setState] = useState<AccountState>({
    account: null,
    usage: null,
    loading: true,
    error: null,
  });
  const refresh = useCallback(async () => {
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const [account, usage] = await Promise.all([client.account(), client.usage()]);
      setState({ account, usage, loading: false, error: null });
    } catch (error) {
      setState((previous) => ({ ...previous, loading: false, error: describeError(error) }));
    }
  }, [client]);
  // Usage moves while other screens create and destroy sessions: reload each time the screen is shown.
  useEffect(() => {
    if (!active) return;
    void refresh();
    // Hours accrue while sessions run: keep the gauges current while the screen is shown.
    const timer = setInterval(() => void refresh(), refreshIntervalMs);
    return () => clearInterval(timer);
  }, [active, refresh]);
  return { ...state, refresh };
}
