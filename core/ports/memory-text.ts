/**
 * The memory rules storage applies too, for plugins that load without the rest of core: how a
 * text becomes index terms (the same terms recall's query tokens are matched against), and the
 * slices long writes yield the event loop between. The memory search threads read through the
 * storage plugin and load this file, not core/index.ts, which would bring every operation along.
 */
export { createPacedSlices, createSlices } from "../event-loop-turns.ts";
export { indexTermCounts } from "../memory/tokenize.ts";
