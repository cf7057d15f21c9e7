// Counts the method calls made on an object (a store): tests check which reads and writes a step costs.

/** `target` with every method call counted by name in `calls`. */
export function countedCalls<T extends object>(target: T, calls: Map<string, number>): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const v = Reflect.get(obj, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(obj, args);
      };
    },
  });
}
