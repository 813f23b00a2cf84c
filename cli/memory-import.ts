/**
 * Splitting a large memory file into import calls. The server takes at most 500 memories and
 * 2000 relations per call, and a relation only links memories of the same call, so memories that
 * are linked travel together: linked groups are packed whole into batches. A group too big for
 * one batch is split, and the relations across the cut are reported as dropped.
 */
export const maxMemoriesPerBatch = 500;
export const maxRelationsPerBatch = 2000;

export interface ImportItem {
  id?: string | null;
  [field: string]: unknown;
}
export interface ImportRelation {
  source_memory_id: string;
  target_memory_id: string;
  [field: string]: unknown;
}
export interface ImportBatch {
  memories: ImportItem[];
  relations: ImportRelation[];
}

export function planImport(
  memories: ImportItem[],
  relations: ImportRelation[],
): { batches: ImportBatch[]; droppedRelations: number } {
  // Union-find over memory positions: a relation joins its two ends into one group.
  const parent = memories.map((_, index) => index);
  const find = (index: number): number => {
    while (parent[index] !== index) {
      parent[index] = parent[parent[index]];
      index = parent[index];
    }
    return index;
  };
  const positionOf = new Map<string, number>();
  memories.forEach((memory, index) => {
    if (typeof memory.id === "string") positionOf.set(memory.id, index);
  });
  for (const relation of relations) {
    const source = positionOf.get(relation.source_memory_id);
    const target = positionOf.get(relation.target_memory_id);
    if (source !== undefined && target !== undefined) parent[find(source)] = find(target);
  }
  const groups = new Map<number, number[]>();
  memories.forEach((_, index) => {
    const root = find(index);
    groups.set(root, [...(groups.get(root) ?? []), index]);
  });

  const batchOf = new Array<number>(memories.length);
  const batches: ImportBatch[] = [];
  const open = () => batches.push({ memories: [], relations: [] }) - 1;
  let current = -1;
  for (const members of groups.values()) {
    for (const index of members) {
      if (current === -1 || batches[current].memories.length >= maxMemoriesPerBatch) current = open();
      // A group that fits in a fresh batch starts one rather than being cut.
      if (
        index === members[0] &&
        members.length <= maxMemoriesPerBatch &&
        batches[current].memories.length + members.length > maxMemoriesPerBatch
      )
        current = open();
      batches[current].memories.push(memories[index]);
      batchOf[index] = current;
    }
  }
  let droppedRelations = 0;
  for (const relation of relations) {
    const source = positionOf.get(relation.source_memory_id);
    const target = positionOf.get(relation.target_memory_id);
    // A relation naming an id outside the file goes to the server, whose answer names the mistake.
    const batch = source !== undefined ? batchOf[source] : target !== undefined ? batchOf[target] : 0;
    const sameBatch = source === undefined || target === undefined || batchOf[source] === batchOf[target];
    if (!sameBatch || batches.length === 0) droppedRelations++;
    else batches[batch].relations.push(relation);
  }
  // A call takes at most 2000 relations and cannot carry relations alone; the excess is reported.
  for (const batch of batches) {
    if (batch.relations.length > maxRelationsPerBatch) {
      droppedRelations += batch.relations.length - maxRelationsPerBatch;
      batch.relations = batch.relations.slice(0, maxRelationsPerBatch);
    }
  }
  return { batches, droppedRelations };
}
