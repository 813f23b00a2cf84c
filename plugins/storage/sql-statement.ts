/**
 * SQL statements as text around bound values, built with the `sql` tag. A value between the
 * parts is always a parameter; text joins a statement only as a nested `sql` fragment or `raw`
 * (column lists, conditions built from checked constants). Each driver's placeholders are written
 * where the values go, by construction: `?` for better-sqlite3, `$1…$n` for pg. Nothing ever
 * scans the text for placeholders, so a `?` in a string literal or in an operator (`?|`) is never
 * mistaken for one.
 */

/** A statement: `parts` is the text around `values`, one part more than there are values. */
export interface Sql {
  readonly parts: readonly string[];
  readonly values: readonly unknown[];
}

/** A statement made here, which nests into another (any other object is a parameter value). */
class Fragment implements Sql {
  readonly parts: readonly string[];
  readonly values: readonly unknown[];
  constructor(parts: readonly string[], values: readonly unknown[]) {
    this.parts = parts;
    this.values = values;
  }
}

/** `sql\`select … where id = ${id}\``: each value a parameter, or a nested fragment spliced in. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts = [strings[0]];
  const bound: unknown[] = [];
  for (const [index, value] of values.entries()) {
    if (value instanceof Fragment) {
      parts[parts.length - 1] += value.parts[0];
      for (let part = 1; part < value.parts.length; part++) {
        bound.push(value.values[part - 1]);
        parts.push(value.parts[part]);
      }
      parts[parts.length - 1] += strings[index + 1];
    } else {
      bound.push(value);
      parts.push(strings[index + 1]);
    }
  }
  return new Fragment(parts, bound);
}

/** Any statement as one that nests into another (a string: one without values). */
export function statementOf(statement: Sql | string): Sql {
  if (typeof statement === "string") return raw(statement);
  return statement instanceof Fragment ? statement : new Fragment(statement.parts, statement.values);
}

/** Trusted text as a fragment: never a value from a request. */
export function raw(text: string): Sql {
  return new Fragment([text], []);
}

export const empty = raw("");

/** The fragments one after another, `separator` between them. */
export function join(fragments: readonly Sql[], separator = ", "): Sql {
  if (fragments.length === 0) return empty;
  const parts = [""];
  const values: unknown[] = [];
  for (const [index, fragment] of fragments.entries()) {
    if (index > 0) parts[parts.length - 1] += separator;
    parts[parts.length - 1] += fragment.parts[0];
    for (let part = 1; part < fragment.parts.length; part++) {
      values.push(fragment.values[part - 1]);
      parts.push(fragment.parts[part]);
    }
  }
  return new Fragment(parts, values);
}

/** The values as a parameter each, comma-separated (an IN list, a row of VALUES). */
export function list(values: readonly unknown[]): Sql {
  return new Fragment(
    Array.from({ length: values.length + 1 }, (_, index) =>
      index === 0 || index === values.length ? "" : ", ",
    ),
    values,
  );
}

/** The text better-sqlite3 prepares: `?` at each value. */
export function sqliteText(statement: Sql): string {
  return statement.parts.join("?");
}

/** The text pg sends: `$1…$n` at the values, in order. */
export function postgresText(statement: Sql): string {
  let text = statement.parts[0];
  for (let index = 1; index < statement.parts.length; index++) text += `$${index}${statement.parts[index]}`;
  return text;
}
