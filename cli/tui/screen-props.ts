/** What the app hands each screen, and the hook by which a screen keeps its mode and tells the app. */
import type { CairnClient } from "cairn-client";
import { useCallback, useEffect } from "react";
import type { Mode } from "./help-bar.ts";
import { useRefState } from "./use-ref-state.ts";

export interface ScreenProps {
  client: CairnClient;
  /** The shown screen; hidden screens keep their state but take no keys. */
  active: boolean;
  /** Whether the screen is shown this instant (key handlers ask this: `active` lags a render behind). */
  isShown(): boolean;
  width: number;
  height: number;
  /** Called at once on every mode change, so the app's global keys know a field has the keys. */
  onModeChange(mode: Mode): void;
}

/**
 * A screen's mode as state plus a ref (key handlers read the ref). Setting it tells the app
 * straight away; `shownMode` (the mode or a finer one derived from it) is told on every change.
 */
export function useScreenMode<Local extends string>(
  initial: Local,
  toMode: (mode: Local) => Mode,
  onModeChange: (mode: Mode) => void,
) {
  const [mode, setModeState, modeRef] = useRefState(initial);
  const setMode = useCallback(
    (next: Local) => {
      setModeState(next);
      onModeChange(toMode(next));
    },
    [setModeState, onModeChange, toMode],
  );
  return [mode, setMode, modeRef] as const;
}

/** Tells the app the shown mode whenever it (or the shown screen) changes. */
export function useReportMode(active: boolean, mode: Mode, onModeChange: (mode: Mode) => void) {
  useEffect(() => {
    if (active) onModeChange(mode);
  }, [active, mode, onModeChange]);
}
