export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Lays `patch` over `base`, section by section: nested objects merge, anything else (values,
 * arrays) replaces, `undefined` leaves the old value. Generic, so a feature that adds a settings
 * section adds it to the schema and nothing here.
 */
export function mergePatch<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    result[key] = isPlainObject(result[key]) && isPlainObject(value) ? mergePatch(result[key], value) : value;
  }
  return result as T;
}
