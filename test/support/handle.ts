/**
 * A stand-in for a fixture that is made again for each test (or file): every property access
 * goes to the instance `current` returns at that moment, so a test file can name the fixture
 * once at its top. `own` adds members of the handle itself (such as `restart`).
 */
export function forwardingHandle<T extends object, Own extends object = Record<never, never>>(current: () => T, own?: Own): T & Own {
  return new Proxy(own ?? {}, {
    get(handle, key) {
      if (Reflect.has(handle, key)) return Reflect.get(handle, key) as unknown;
      const target = current();
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as T & Own;
}
