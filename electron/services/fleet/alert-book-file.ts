import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { FleetAlert } from '../../shared/schemas-fleet';
import { writeFileAtomic } from '../util/atomic-file';

/** What `fleet-alert-book.json` holds: the episodes and the counter their ids continue from. */
const BookFile = z.object({ version: z.literal(1), seq: z.number().int().nonnegative(), alerts: z.array(FleetAlert) });
export type BookFile = z.infer<typeof BookFile>;

/**
 * The alert book on disk (issue 33: alerts survive a backend restart, so an episode already told is not told
 * again). Read once at start; a missing or unreadable file is an empty book (logged: a half-written file cannot
 * happen, writes are atomic, so an unreadable one was edited by hand). Written whole, atomically, one write at a
 * time, newest last.
 */
export class AlertBookFile {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string,
    private readonly warn: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  async read(): Promise<BookFile | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.warn('could not read the fleet alerts', { message: String((error as Error).message) });
      return null;
    }
    try {
      return BookFile.parse(JSON.parse(text));
    } catch (error) {
      this.warn('the fleet alerts file is not readable; starting with an empty list', { path: this.path, message: error instanceof Error ? error.message.slice(0, 200) : String(error) });
      return null;
    }
  }

  /** Queues a write of `book` (each write waits for the one before, so the newest always lands last). */
  save(book: BookFile): Promise<void> {
    const text = JSON.stringify(book, null, 1);
    this.writing = this.writing
      .then(() => writeFileAtomic(this.path, text))
      .catch((error: unknown) => this.warn('could not save the fleet alerts', { message: error instanceof Error ? error.message : String(error) }));
    return this.writing;
  }

  /** Resolves once every queued write is done (dispose, tests). */
  flush(): Promise<void> {
    return this.writing;
  }
}
