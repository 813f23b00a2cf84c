/** LSP's CompletionItemKind table (LSP 3.17 §textDocument/completion), for results a model reads. */
const completionItemKinds = [
  "Text",
  "Method",
  "Function",
  "Constructor",
  "Field",
  "Variable",
  "Class",
  "Interface",
  "Module",
  "Property",
  "Unit",
  "Value",
  "Enum",
  "Keyword",
  "Snippet",
  "Color",
  "File",
  "Reference",
  "Folder",
  "EnumMember",
  "Constant",
  "Struct",
  "Event",
  "Operator",
  "TypeParameter",
] as const;

/** The name of a numeric kind (1 = "Text" … 25 = "TypeParameter"); other values are kept as they are. */
export function completionKindName(kind: unknown): unknown {
  return typeof kind === "number" && Number.isInteger(kind) && kind >= 1 && kind <= completionItemKinds.length
    ? completionItemKinds[kind - 1]
    : kind;
}

/** Completion items with `kind` as its name instead of its number. */
export function withKindNames(items: readonly unknown[]): unknown[] {
  return items.map((item) =>
    typeof item === "object" && item !== null && "kind" in item
      ? { ...item, kind: completionKindName((item as { kind: unknown }).kind) }
      : item,
  );
}
