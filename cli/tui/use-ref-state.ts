/**
 * State with a ref that changes at once. Keys can arrive faster than React commits a render; a
 * key handler reads the ref, so the key after "open the command line" already goes into it.
 */
import { useCallback, useRef, useState } from "react";

export function useRefState<Value>(initial: Value) {
  const [value, setValue] = useState(initial);
  const ref = useRef(initial);
  const set = useCallback((next: Value) => {
    ref.current = next;
    setValue(next);
  }, []);
  return [value, set, ref] as const;
}
