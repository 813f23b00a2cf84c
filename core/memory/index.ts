/**
 * Cairn's memory algorithms, independent of storage: tokenisation for the full-text index,
 * entity extraction, relation detection, event dates, ingest, history intent and the lexical
 * ranking. Both memory stores (SQLite, PostgreSQL) use these so their results are identical.
 * Web-standard JavaScript only: no I/O, no `node:` imports.
 */

export {
  type CorrectionProfile,
  correctionCandidates,
  correctionConfidence,
  correctionProfile,
  detectRelationByMeaning,
} from "./corrections.ts";
export { extractEventDates, maxEventDates, unionDates } from "./dates.ts";
export {
  createMemoryEmbedder,
  embeddingPathVersion,
  type MemoryEmbedder,
  type MemoryEmbedderOptions,
  type QueryEmbedding,
  type StoredBatch,
} from "./embedder.ts";
export { extractEntities, sharedEntities } from "./entities.ts";
export { asksForHistory } from "./history.ts";
export { type FusedMemory, type FusionOptions, fuseRankings, type LexicalHit } from "./hybrid.ts";
export { type HybridRecall, type HybridRecallSettings, hybridRecall } from "./hybrid-recall.ts";
export {
  classifyKind,
  type ExtractedMemory,
  extractMemories,
  type IngestRequest,
  importanceOf,
  maxFragments,
  maxMemoryLength,
  maxWholeDocumentBytes,
} from "./ingest.ts";
export {
  type CorrectionLinkerSettings,
  type CorrectionSearch,
  createCorrectionLinker,
  planCorrections,
} from "./link-corrections.ts";
export { type RecalledMemory, type RecallRequest, recallMemories } from "./recall.ts";
export {
  type DetectedRelation,
  detectProfileRelation,
  detectRelation,
  jaccardSimilarity,
  type RelationProfile,
  relationProfile,
} from "./relations.ts";
export {
  type PhraseMatch,
  phraseMatches,
  type ScoredMemory,
  type ScoringCandidate,
  type ScoringInput,
  scoreCandidates,
} from "./scoring.ts";
export {
  indexTermCounts,
  indexTokens,
  maxIndexTokens,
  maxQueryTokens,
  maxTokenLength,
  meaningfulTokens,
  normaliseText,
  queryTokens,
  textTerms,
} from "./tokenize.ts";
export * from "./vocabulary.ts";
