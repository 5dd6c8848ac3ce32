// Issue 32: a worker's notes reach the renderer as data; the English `note` line is made from the same
// data (one source), and every note has words in en and zh-CN with its placeholders filled.
import { describe, expect, it } from 'vitest';
import { noteText, notesLine, projectNote, workerNote } from '../../../../electron/services/workers/worker-notes';
import { TUNNEL_NOTE } from '../../../../electron/services/workers/ssh-workers';
import { WorkerNote } from '../../../../electron/shared/schemas-workers';
import { en } from '../../../../renderer/src/lib/i18n/en';
import { zhCN } from '../../../../renderer/src/lib/i18n/zh-CN';

const SAMPLES: WorkerNote[] = [
  workerNote('resumed'),
  workerNote('restarted'),
  workerNote('reshared', { share: 2, workers: 3 }),
  workerNote('keepsShare', { share: 4, workers: 3, splitShare: 2 }),
  workerNote('reverseTunnel'),
  projectNote({ complete: true, hash: 'ab12', sent: 0, reused: 9 }),
  projectNote({ complete: false, hash: 'ab12', sent: 3, reused: 6 }),
  workerNote('slurmTask', { array: '812', task: 1 }),
];

describe('worker notes', () => {
  it('one English line from the data, as the note said before', () => {
    expect(notesLine([])).toBeNull();
    expect(notesLine([workerNote('slurmTask', { array: '812', task: 1 }), projectNote({ complete: false, hash: 'ab12', sent: 3, reused: 6 })])).toBe(
      'Slurm array 812, task 1; project ab12: 3 file(s) sent, 6 reused',
    );
    expect(noteText(workerNote('reshared', { share: 2, workers: 3 }))).toBe('restarted with a share of 2 tasks: the pool now has 3 active workers');
    expect(TUNNEL_NOTE).toMatch(/^reaches the swarm server through a reverse tunnel/);
  });

  it('every kind of note has words in en and zh-CN, the English the same as the log line', () => {
    expect(new Set(SAMPLES.map((n) => n.key))).toEqual(new Set(WorkerNote.shape.key.options));
    for (const note of SAMPLES) {
      const key = `workers.noteSay.${note.key}` as keyof typeof en;
      for (const dictionary of [en, zhCN] as Record<string, string>[]) {
        const text = dictionary[key]!;
        expect(text, key).toBeTypeOf('string');
        for (const [, name] of text.matchAll(/\{(\w+)\}/g)) expect(Object.keys(note.params), `${key} {${name}}`).toContain(name);
      }
      const filled = en[key].replace(/\{(\w+)\}/g, (_, name: string) => String(note.params[name]));
      expect(filled, key).toBe(noteText(note));
    }
  });
});
