/** What the app hands each screen, and the hook by which a screen tells the app its current mode. */
import type { CairnClient } from "cairn-client";
import { useEffect } from "react";
import type { Mode } from "./help-bar.ts";

export interface ScreenProps {
  client: CairnClient;
  /** The shown screen; hidden screens keep their state but take no keys. */
  active: boolean;
  width: number;
  height: number;
  onModeChange(mode: Mode): void;
}

export function useReportMode(active: boolean, mode: Mode, onModeChange: (mode: Mode) => void) {
  useEffect(() => {
    if (active) onModeChange(mode);
  }, [active, mode, onModeChange]);
}
