import { rememberSecretValue } from '../util/redact';

/**
 * Secret env values typed for this run of the app (until the credentials vault lands), per profile.
 * Memory only: never written, logged, sent in an event or put in an error. What leaves this class
 * is the list of names that have a value, and the values themselves only towards the engine's create.
 */
export class SecretMemory {
  private readonly values = new Map<string, Map<string, string>>();

  /** Names of `names` with a remembered value, in the profile's order. */
  known(profileId: string, names: readonly string[]): string[] {
    const held = this.values.get(profileId);
    return held ? names.filter((name) => held.has(name)) : [];
  }

  /** Remembered values overridden by `given`, limited to the profile's secret names (a stray key is dropped). */
  merge(profileId: string, names: readonly string[], given: Readonly<Record<string, string>>): Record<string, string> {
    const held = this.values.get(profileId);
    const merged: Record<string, string> = {};
    for (const name of names) {
      const value = given[name] || held?.get(name);
      if (value) merged[name] = value;
    }
    return merged;
  }

  remember(profileId: string, values: Readonly<Record<string, string>>): void {
    // Typed values are secrets too: the one redactor hides them in every log, event and error.
    for (const value of Object.values(values)) rememberSecretValue(value);
    this.values.set(profileId, new Map(Object.entries(values)));
  }

  forget(profileId: string): void {
    this.values.delete(profileId);
  }

  clear(): void {
    this.values.clear();
  }
}
