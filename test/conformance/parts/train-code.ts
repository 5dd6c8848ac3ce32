// POST /sync_train_code: raw zip bytes, checked before they are extracted (reference §1.1, appendix point 14).
import { describe, expect, it } from 'vitest';
import type { PartContext } from '../swarm-conformance';
import { makeZip } from '../support/zip';

const ZIP = { 'content-type': 'application/zip' };

export function trainCodePart(ctx: PartContext): void {
  describe('sync_train_code', () => {
    const upload = (body: Buffer | string) => ctx.swarm().call('POST', '/sync_train_code', { body, headers: ZIP });

    it('accepts a zip whose members are all under ajet/', async () => {
      const r = await upload(makeZip([{ name: 'ajet/' }, { name: 'ajet/__init__.py', content: '' }, { name: 'ajet/x/y.py', content: 'print(1)\n' }]));
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(['message', 'success', 'temp_ajet_code_path']);
      expect(r.json).toMatchObject({ success: true, message: 'Training code synced successfully.' });
      expect(r.json.temp_ajet_code_path).toMatch(/^\/.*\/ajet$/);
    });

    it('refuses an empty body, a non-zip, an empty zip, and members outside ajet/ with upstream\'s 400 texts', async () => {
      const cases: Array<[string, Buffer | string, string]> = [
        ['empty body', '', 'Uploaded zip file is empty.'],
        ['not a zip', 'hello, this is not a zip file', 'Uploaded file is not a valid zip file.'],
        ['zip magic only', Buffer.from('PK\x03\x04garbage', 'latin1'), 'Uploaded file is not a valid zip file.'],
        ['empty zip', makeZip([]), 'Uploaded zip file is empty.'],
        ['member outside ajet/', makeZip([{ name: 'ajet/a.py' }, { name: 'setup.py', content: 'x' }]), 'Zip member must be under ajet/: setup.py'],
        ['normalised outside', makeZip([{ name: 'ajet/../evil.py' }]), 'Zip member must be under ajet/: ajet/../evil.py'],
        ['parent escape', makeZip([{ name: '../evil.py' }]), 'Unsafe zip member path: ../evil.py'],
        ['absolute path', makeZip([{ name: '/etc/evil' }]), 'Unsafe zip member path: /etc/evil'],
        ['no ajet directory', makeZip([{ name: './' }]), 'Uploaded zip file does not contain an ajet/ directory.'],
      ];
      for (const [what, body, detail] of cases) {
        const r = await upload(body);
        expect({ what, status: r.status, json: r.json }).toEqual({ what, status: 400, json: { detail } });
      }
    });

    it('reads the raw body whatever the Content-Type says', async () => {
      const r = await ctx.swarm().call('POST', '/sync_train_code', { body: makeZip([{ name: 'ajet/a.py' }]), headers: { 'content-type': 'application/json' } });
      expect(r.json).toMatchObject({ success: true });
    });
  });
}
