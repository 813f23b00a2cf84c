import { z } from "zod";

/**
 * A resource id taken from the path. Every id Cairn issues is a lower-case UUID, so one written
 * in upper case names the same resource (as PostgreSQL's uuid type reads it). Anything that
 * cannot be an id (too long, a NUL byte) becomes "" and the lookup finds nothing: the same 404 as
 * any unknown id, never a 422 or a database error.
 */
export const resourceId = z
  .string()
  .transform((id) => (id.length > 0 && id.length <= 64 && !id.includes("\0") ? id.toLowerCase() : ""));
