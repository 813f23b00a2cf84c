/**
 * Whether a search query asks about the past (docs/memory.md#search). Such a query also sees
 * superseded memories, and ranks them before the memories that replaced them.
 */

// The documented words and phrases, plus a few obvious inflections (formerly, previously, originally,
// older, "what were"). "before" matches as a whole word, so "beforehand" does not count.
const historyPattern =
  /\b(earlier|former|formerly|historical|historically|old|older|original|originally|previous|previously|prior|retired|superseded|used to|before|what was|what were)\b/;

export function asksForHistory(query: string): boolean {
  const normalised = query.normalize("NFKC").toLowerCase().replace(/\s+/g, " ");
  return historyPattern.test(normalised);
}
