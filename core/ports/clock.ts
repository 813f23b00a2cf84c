/** Time as a port, so quota, reaper and rate-limit tests run on an injected clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
