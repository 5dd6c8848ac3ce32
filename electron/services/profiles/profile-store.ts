import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { Profile, type ProfileInput } from '../../shared/schemas-profiles';
import { slugOf } from '../ssh/server-store';
import { JsonStore } from '../util/json-store';
import type { Logger } from '../util/logger';

export const PROFILES_FILE = 'swarm-profiles.json';

const ProfilesFile = z.object({ profiles: z.array(Profile) });

function notFound(id: string): AppError {
  return new AppError('PROFILE_NOT_FOUND', `No swarm profile with id "${id}". It may have been removed in another window.`);
}

/**
 * Swarm server profiles in `<dataDir>/swarm-profiles.json`. No secrets (the schema holds secret env
 * names only). A `JsonStore`: atomic writes, a broken file moved aside instead of lost.
 */
export class ProfileStore {
  private readonly store: JsonStore<typeof ProfilesFile>;
  private readonly listeners = new Set<() => void>();

  constructor(dataDir: string, logger?: Logger) {
    this.store = new JsonStore({
      file: join(dataDir, PROFILES_FILE),
      schema: ProfilesFile,
      defaults: { profiles: [] },
      errors: { invalid: 'VALIDATION_FAILED', notSaved: 'SETTINGS_NOT_SAVED' },
      ...(logger ? { logger } : {}),
    });
  }

  get path(): string {
    return this.store.file;
  }

  /** Never throws: an unreadable file leaves no profiles in memory and is not written over. */
  async load(): Promise<Profile[]> {
    return (await this.store.load()).profiles;
  }

  list(): Profile[] {
    return this.store.get().profiles;
  }

  get(id: string): Profile {
    const profile = this.list().find((p) => p.id === id);
    if (!profile) throw notFound(id);
    return profile;
  }

  /** Called after every add, update and remove. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async add(input: ProfileInput): Promise<Profile> {
    let added: Profile | null = null;
    await this.store.update(({ profiles }) => {
      assertUnique(profiles, input, null);
      const taken = new Set(profiles.map((p) => p.id));
      const base = slugOf(input.label);
      let id = base;
      for (let n = 2; taken.has(id); n += 1) id = `${base.slice(0, 40)}-${n}`;
      const now = new Date().toISOString();
      added = { ...input, id, createdAt: now, updatedAt: now };
      return { profiles: [...profiles, added] };
    });
    this.changed();
    return added!;
  }

  /** Replaces a profile's fields; its id stays (containers carry it as a label). */
  async update(id: string, input: ProfileInput): Promise<Profile> {
    let updated: Profile | null = null;
    await this.store.update(({ profiles }) => {
      const old = profiles.find((p) => p.id === id);
      if (!old) throw notFound(id);
      assertUnique(profiles, input, id);
      updated = { ...input, id, createdAt: old.createdAt, updatedAt: new Date().toISOString() };
      return { profiles: profiles.map((p) => (p.id === id ? updated! : p)) };
    });
    this.changed();
    return updated!;
  }

  async remove(id: string): Promise<void> {
    await this.store.update(({ profiles }) => {
      if (!profiles.some((p) => p.id === id)) throw notFound(id);
      return { profiles: profiles.filter((p) => p.id !== id) };
    });
    this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's bug must not fail the save that already happened.
      }
    }
  }
}

function assertUnique(profiles: Profile[], input: ProfileInput, exceptId: string | null): void {
  const others = profiles.filter((p) => p.id !== exceptId);
  const sameLabel = others.find((p) => p.label.toLowerCase() === input.label.toLowerCase());
  if (sameLabel) throw new AppError('PROFILE_EXISTS', `A swarm profile named "${sameLabel.label}" already exists. Choose another name, or edit that one.`);
  const samePort = others.find((p) => p.engineId === input.engineId && p.port === input.port);
  if (samePort) {
    throw new AppError(
      'PROFILE_EXISTS',
      `"${samePort.label}" already uses port ${input.port} on the same engine. Two servers cannot listen on one port: choose another port.`,
    );
  }
}
