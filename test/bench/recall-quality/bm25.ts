/**
 * Plain Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − n + 0.5) / (n + 0.5))) over one set
 * of documents. Tokens: lowercase runs of letters and digits (Unicode), no stemming, minus a
 * small conventional English stopword list (below).
 */

export const stopwords = new Set(
  `a an and are as at be but by for from has have he her his i if in into is it its me my of on or our
she so that the their them they this to was we were what when where which who why will with you your
s t d ll m re ve`
    .split(/\s+/)
    .filter((word) => word !== ""),
);

export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((token) => !stopwords.has(token));
}

/** The tokens of the texts counted, each text's tokens counting `weight` each. */
export function termCounts(texts: ReadonlyArray<{ text: string; weight: number }>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { text, weight } of texts)
    for (const token of tokenize(text)) counts.set(token, (counts.get(token) ?? 0) + weight);
  return counts;
}

export class Bm25Index {
  private readonly documents: Array<{ id: string; length: number; counts: Map<string, number> }> = [];
  private readonly documentFrequency = new Map<string, number>();
  private totalLength = 0;

  private readonly k1 = 1.2;
  private readonly b = 0.75;

  add(id: string, text: string) {
    this.addCounts(id, termCounts([{ text, weight: 1 }]));
  }

  /** A document given as term counts (weighted ones too); its length is their sum. */
  addCounts(id: string, counts: Map<string, number>) {
    let length = 0;
    for (const [token, count] of counts) {
      this.documentFrequency.set(token, (this.documentFrequency.get(token) ?? 0) + 1);
      length += count;
    }
    this.documents.push({ id, length, counts });
    this.totalLength += length;
  }

  /** Ids of the best `limit` documents, best first; ties keep insertion order. */
  search(query: string, limit: number): string[] {
    const terms = [...new Set(tokenize(query))];
    const total = this.documents.length;
    const averageLength = this.totalLength / Math.max(1, total);
    const scored: Array<{ id: string; score: number; order: number }> = [];
    for (const [order, document] of this.documents.entries()) {
      let score = 0;
      for (const term of terms) {
        const frequency = document.counts.get(term);
        if (!frequency) continue;
        const containing = this.documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (total - containing + 0.5) / (containing + 0.5));
        score +=
          (idf * frequency * (this.k1 + 1)) /
          (frequency + this.k1 * (1 - this.b + (this.b * document.length) / averageLength));
      }
      if (score > 0) scored.push({ id: document.id, score, order });
    }
    scored.sort((left, right) => right.score - left.score || left.order - right.order);
    return scored.slice(0, limit).map((hit) => hit.id);
  }
}
