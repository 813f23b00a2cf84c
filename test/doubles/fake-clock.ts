/** A clock tests move by hand: the `Clock` port (core/ports/clock.ts) at a time the test sets. */
export function createFakeClock(start = new Date("2026-01-15T12:00:00Z")) {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(milliseconds: number) {
      current += milliseconds;
    },
    set(date: Date) {
      current = date.getTime();
    },
  };
}
