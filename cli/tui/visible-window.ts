/** Which slice of a long list fits in a given number of rows while keeping the selection in view. */

export interface VisibleWindow<Item> {
  items: Item[];
  /** Index of the first shown item in the full list. */
  start: number;
}

export function visibleWindow<Item>(items: Item[], selected: number, rows: number): VisibleWindow<Item> {
  const size = Math.max(1, rows);
  if (items.length <= size) return { items, start: 0 };
  // Keep the selection in the middle where possible, so both neighbours stay visible while scrolling.
  const start = Math.min(Math.max(0, selected - Math.floor(size / 2)), items.length - size);
  return { items: items.slice(start, start + size), start };
}

/** Moves a selection by `step`, clamped to the list. */
export function moveSelection(selected: number, step: number, length: number): number {
  if (length === 0) return 0;
  return Math.min(length - 1, Math.max(0, selected + step));
}
