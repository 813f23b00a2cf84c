/** The memory vocabularies, declared once: schemas, ports and the memory logic derive from them. */

export const memoryKinds = ["fact", "preference", "goal", "instruction", "note", "summary"] as const;
export type MemoryKind = (typeof memoryKinds)[number];

export const relationTypes = ["updates", "extends", "related", "derives"] as const;
export type RelationType = (typeof relationTypes)[number];

/** What relation detection finds; "derives" comes only from import. */
export type DetectedRelationType = Exclude<RelationType, "derives">;
