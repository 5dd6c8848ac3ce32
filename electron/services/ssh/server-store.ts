import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { ServerProfile, type ServerProfileInput } from '../../shared/schemas-servers';
import { JsonStore } from '../util/json-store';
import type { Logger } from '../util/logger';

export const SERVERS_FILE = 'servers.json';

const ServersFile = z.object({ servers: z.array(ServerProfile) });

/** A server id from its label: lowercase letters, digits and "-", e.g. "GPU box #2" → "gpu-box-2". */
export function slugOf(label: string): string {
  const slug = label
    .normalize('NFKD')
    // Accents come apart under NFKD; drop the marks so "Ünïcode" becomes "unicode", not "u-ni-code".
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? 'server' : slug;
}

/** `user@host:port`: two profiles with the same are the same login on the same machine. */
function loginOf(p: Pick<ServerProfileInput, 'username' | 'host' | 'port'>): string {
  return `${p.username}@${p.host.toLowerCase()}:${p.port}`;
}

/**
 * The server profiles in `<dataDir>/servers.json`. Holds no secret (the schema has no field for
 * one). A `JsonStore`, so a broken file is moved aside instead of lost and writes are atomic.
 */
export class ServerStore {
  private readonly store: JsonStore<typeof ServersFile>;

  constructor(dataDir: string, logger?: Logger) {
    this.store = new JsonStore({
      file: join(dataDir, SERVERS_FILE),
      schema: ServersFile,
      defaults: { servers: [] },
      errors: { invalid: 'VALIDATION_FAILED', notSaved: 'SETTINGS_NOT_SAVED' },
      ...(logger ? { logger } : {}),
    });
  }

  get path(): string {
    return this.store.file;
  }

  /** Never throws: an unreadable file leaves no servers in memory and is not written over (see JsonStore). */
  async load(): Promise<ServerProfile[]> {
    return (await this.store.load()).servers;
  }

  list(): ServerProfile[] {
    return this.store.get().servers;
  }

  get(id: string): ServerProfile {
    const profile = this.list().find((p) => p.id === id);
    if (!profile) throw new AppError('SERVER_NOT_FOUND', `No server with id "${id}". It may have been removed in another window.`);
    return profile;
  }

  async add(input: ServerProfileInput): Promise<ServerProfile> {
    let added: ServerProfile | null = null;
    await this.store.update(({ servers }) => {
      assertUnique(servers, input, null);
      const taken = new Set(servers.map((s) => s.id));
      const base = slugOf(input.label);
      let id = base;
      for (let n = 2; taken.has(id); n += 1) id = `${base.slice(0, 40)}-${n}`;
      added = { ...input, id };
      return { servers: [...servers, added] };
    });
    return added!;
  }

  /** Replaces a profile's fields; its id (and so its engine id) stays. */
  async update(id: string, input: ServerProfileInput): Promise<ServerProfile> {
    let updated: ServerProfile | null = null;
    await this.store.update(({ servers }) => {
      if (!servers.some((s) => s.id === id)) throw new AppError('SERVER_NOT_FOUND', `No server with id "${id}". It may have been removed in another window.`);
      assertUnique(servers, input, id);
      updated = { ...input, id };
      return { servers: servers.map((s) => (s.id === id ? updated! : s)) };
    });
    return updated!;
  }

  async remove(id: string): Promise<void> {
    await this.store.update(({ servers }) => {
      if (!servers.some((s) => s.id === id)) throw new AppError('SERVER_NOT_FOUND', `No server with id "${id}". It may have been removed in another window.`);
      return { servers: servers.filter((s) => s.id !== id) };
    });
  }
}

function assertUnique(servers: ServerProfile[], input: ServerProfileInput, exceptId: string | null): void {
  const others = servers.filter((s) => s.id !== exceptId);
  const sameLabel = others.find((s) => s.label.toLowerCase() === input.label.toLowerCase());
  if (sameLabel) throw new AppError('SERVER_EXISTS', `A server named "${sameLabel.label}" already exists. Choose another name, or edit that one.`);
  const sameLogin = others.find((s) => loginOf(s) === loginOf(input));
  if (sameLogin) {
    throw new AppError('SERVER_EXISTS', `"${sameLogin.label}" already logs in as ${loginOf(input)}. Edit that server instead of adding it twice.`);
  }
}
