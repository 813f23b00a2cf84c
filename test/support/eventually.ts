/**
 * Waiting on work a server does in the background (a hook's delivery, a journal's memories):
 * polls a probe until it returns a value, a bounded number of times. A test asserts what came
 * back, never how long it took.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  { attempts = 200, intervalMilliseconds = 100 } = {},
): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMilliseconds));
  }
  throw new Error(`the awaited condition did not hold after ${attempts} tries`);
}
