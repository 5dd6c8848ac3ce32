import { forgetSecretValue, rememberSecretValue } from '../util/redact';
import type { Logger } from '../util/logger';
import type { SecretUsageSource } from './vault-api';

/**
 * The values the vault gave the process-wide redactor, so that locking can take back exactly
 * those (and no value another service registered).
 */
export class KnownValues {
  private readonly values = new Set<string>();

  remember(value: string): void {
    rememberSecretValue(value);
    this.values.add(value);
  }

  forget(value: string): void {
    forgetSecretValue(value);
    this.values.delete(value);
  }

  forgetAll(): void {
    for (const value of this.values) forgetSecretValue(value);
    this.values.clear();
  }
}

/** Who refers to which secret ("used by"), asked at list time; a failing source is skipped. */
export class UsageSources {
  private readonly sources = new Set<SecretUsageSource>();

  constructor(private readonly logger: Logger) {}

  add(source: SecretUsageSource): void {
    this.sources.add(source);
  }

  byId(): Map<string, string[]> {
    const usedBy = new Map<string, string[]>();
    for (const source of this.sources) {
      try {
        for (const { secretId, label } of source()) usedBy.set(secretId, [...(usedBy.get(secretId) ?? []), label]);
      } catch (error) {
        this.logger.warn('vault: a usage source failed', { reason: (error as Error).message });
      }
    }
    return usedBy;
  }
}

/** Change listeners; one that throws never stops the others (or the vault operation). */
export class ChangeListeners {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly logger: Logger) {}

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.logger.warn('vault: a change listener failed', { reason: (error as Error).message });
      }
    }
  }
}
