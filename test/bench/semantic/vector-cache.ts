/**
 * The semantic benchmark's vector cache: embedding 100,000 memories through the model server
 * takes minutes, so the vectors it computed are kept under .test-data/, keyed by the corpus and
 * seed and the model id, and answered from there on later runs. The wrapper is an EmbeddingProvider,
 * so the real embedder drains the real queue either way; only where the vectors come from changes.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { EmbeddingInputType, EmbeddingProvider, Embeddings } from "../../../core/ports/embeddings.ts";

const cacheFolder = resolve(import.meta.dirname, "../../../.test-data/bench-semantic");

export interface VectorCache {
  file: string;
  modelId: string;
  dimensions: number;
  vectors: Map<string, Float32Array>;
  /** How many vectors the file held when it was read. */
  loaded: number;
}

function cacheFile(corpus: string, modelId: string): string {
  return resolve(cacheFolder, `${corpus}-${modelId.replaceAll(/[^A-Za-z0-9._-]/g, "_")}`);
}

/** Reads the cache of this corpus (`seed-42`, `natural-42`) and model (empty when there is none). */
export async function loadVectorCache(corpus: string, modelId: string): Promise<VectorCache> {
  const file = cacheFile(corpus, modelId);
  const cache: VectorCache = { file, modelId, dimensions: 0, vectors: new Map(), loaded: 0 };
  if (!existsSync(`${file}.json`)) return cache;
  const header = JSON.parse(await readFile(`${file}.json`, "utf8")) as {
    dimensions: number;
    texts: string[];
  };
  const bytes = await readFile(`${file}.f32`);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  cache.dimensions = header.dimensions;
  for (const [index, text] of header.texts.entries()) {
    cache.vectors.set(text, all.subarray(index * header.dimensions, (index + 1) * header.dimensions));
  }
  cache.loaded = cache.vectors.size;
  return cache;
}

/** Writes every vector the cache holds now (texts in JSON, float32 values beside them). */
export async function saveVectorCache(cache: VectorCache): Promise<void> {
  await mkdir(cacheFolder, { recursive: true });
  const texts = [...cache.vectors.keys()];
  const all = new Float32Array(texts.length * cache.dimensions);
  for (const [index, text] of texts.entries()) {
    all.set(cache.vectors.get(text) as Float32Array, index * cache.dimensions);
  }
  await writeFile(`${cache.file}.f32`, new Uint8Array(all.buffer));
  await writeFile(`${cache.file}.json`, JSON.stringify({ dimensions: cache.dimensions, texts }));
}

export interface EmbeddingCounts {
  /** Texts the model server embedded, the requests they took, and the time spent waiting for them. */
  computed: number;
  requests: number;
  milliseconds: number;
  /** Texts answered from the cache. */
  fromCache: number;
}

/** The provider, answering a batch from the cache when it holds every text of it. */
export function cachingProvider(
  provider: EmbeddingProvider,
  cache: VectorCache,
): { provider: EmbeddingProvider; counts: EmbeddingCounts } {
  const counts: EmbeddingCounts = { computed: 0, requests: 0, milliseconds: 0, fromCache: 0 };
  const embed = async (
    texts: readonly string[],
    signal?: AbortSignal,
    inputType?: EmbeddingInputType,
  ): Promise<Embeddings> => {
    // The cache holds documents' vectors: a query's (another prompt) is always computed.
    if (inputType === "query") return provider.embed(texts, signal, inputType);
    const cached = texts.map((text) => cache.vectors.get(text));
    if (cache.dimensions > 0 && cached.every((vector) => vector !== undefined)) {
      counts.fromCache += texts.length;
      return { modelId: cache.modelId, dimensions: cache.dimensions, vectors: cached as Float32Array[] };
    }
    const started = performance.now();
    const answer = await provider.embed(texts, signal);
    counts.milliseconds += performance.now() - started;
    counts.computed += texts.length;
    counts.requests += Math.ceil(texts.length / provider.maxBatchSize);
    if (answer.modelId === cache.modelId) {
      cache.dimensions = answer.dimensions;
      for (const [index, text] of texts.entries())
        cache.vectors.set(text, answer.vectors[index] as Float32Array);
    }
    return answer;
  };
  return { provider: { ...provider, embed }, counts };
}
