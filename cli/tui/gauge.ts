/** A horizontal usage gauge: a label, a bar filled in proportion to used/limit, and the figures. */
import { Box, Text } from "ink";
import React from "react";

const h = React.createElement;

export interface GaugeProps {
  label: string;
  used: number;
  limit: number;
  /** Text after the bar, e.g. "1.20 / 10 h". */
  figures: string;
  /** Cells of the bar itself. */
  width?: number;
}

/** The filled and empty cells of a bar; a used value over the limit fills it completely. */
export function gaugeCells(used: number, limit: number, width: number): { filled: number; empty: number } {
  const ratio = limit > 0 ? Math.min(1, Math.max(0, used / limit)) : 0;
  // Anything above zero shows at least one cell, so a little use is never drawn as none.
  const filled = used > 0 ? Math.max(1, Math.round(ratio * width)) : 0;
  return { filled, empty: width - filled };
}

export function Gauge({ label, used, limit, figures, width = 24 }: GaugeProps) {
  const { filled, empty } = gaugeCells(used, limit, width);
  const ratio = limit > 0 ? used / limit : 0;
  const color = ratio >= 0.9 ? "red" : ratio >= 0.7 ? "yellow" : "green";
  return h(
    Box,
    null,
    h(Box, { width: 26 }, h(Text, { wrap: "truncate-end" }, label)),
    h(Text, { color }, "█".repeat(filled)),
    h(Text, { dimColor: true }, "░".repeat(empty)),
    h(Text, null, ` ${figures}`),
  );
}
