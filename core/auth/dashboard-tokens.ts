/**
 * Dashboard session tokens (docs/api.md#credentials): HS256 JWTs pinned to one algorithm, with fixed
 * issuer and audience and `typ` = "dashboard". Anything that fails a check is `invalid_token`.
 */
import { jwtVerify, SignJWT } from "jose";
import { ServiceError } from "../errors.ts";

export const tokenIssuer = "cairn";
export const tokenAudience = "cairn-dashboard";
const tokenType = "dashboard";

export interface DashboardClaims {
  accountId: string;
  email: string;
}

export function createDashboardTokens(settings: { secret: string; ttlMinutes: number }) {
  const key = new TextEncoder().encode(settings.secret);
  const ttlSeconds = settings.ttlMinutes * 60;
  return {
    ttlSeconds,
    async issue(claims: DashboardClaims, now: Date): Promise<string> {
      const issuedAt = Math.floor(now.getTime() / 1000);
      return new SignJWT({ email: claims.email, typ: tokenType })
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(claims.accountId)
        .setIssuer(tokenIssuer)
        .setAudience(tokenAudience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ttlSeconds)
        .sign(key);
    },
    async verify(token: string, now: Date): Promise<DashboardClaims> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer: tokenIssuer,
          audience: tokenAudience,
          requiredClaims: ["exp", "iat", "sub"],
          currentDate: now,
        });
        if (
          payload.typ !== tokenType ||
          typeof payload.sub !== "string" ||
          typeof payload.email !== "string"
        ) {
          throw new Error("wrong token type");
        }
        return { accountId: payload.sub, email: payload.email };
      } catch (error) {
        throw new ServiceError("invalid_token", "Invalid or expired dashboard token", { cause: error });
      }
    },
  };
}

export type DashboardTokens = ReturnType<typeof createDashboardTokens>;
