import { z } from "zod";

// PostgreSQL text and jsonb cannot hold U+0000, and neither can a process argument, so such
// fields refuse it up front: a 422 on every store, never a 500 on one of them.
export const nulMessage = "must not contain the NUL character (U+0000)";
export const withoutNul = (value: string) => !value.includes("\u0000");

/** A string field that every store (and every process argument) can keep. */
export const storableString = () => z.string().refine(withoutNul, nulMessage);
