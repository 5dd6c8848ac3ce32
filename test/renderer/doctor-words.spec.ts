import { render, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import DoctorPanel from '../../renderer/src/pages/servers/profiles/DoctorPanel.svelte';
import { setLocale } from '../../renderer/src/lib/i18n';
import { makeDoctorCheck, makeDoctorReport } from './fake-api';

// The doctor's details come as data (`say`) where the renderer has words for the case, so a
// Chinese user reads them in Chinese; a case without words keeps the backend's English detail.
describe('doctor details worded from data', () => {
  afterEach(() => setLocale('en'));

  it('words a check from its facts in zh-CN, with this computer named in words', () => {
    setLocale('zh-CN');
    const report = makeDoctorReport('p', {}, [
      makeDoctorCheck('port', { detail: 'Port 10086 is free on this computer.', say: { key: 'portFree', params: { port: 10086, host: '' } } }),
      makeDoctorCheck('image', { detail: 'img:1 is present (sha256:x).', say: { key: 'imageDigest', params: { image: 'img:1', digest: 'sha256:x' } } }),
    ]);
    const { getByTestId } = render(DoctorPanel, { report });
    expect(within(getByTestId('doctor-check-port')).getByTestId('doctor-detail-worded').textContent).toBe('本机上的端口 10086 空闲。');
    expect(within(getByTestId('doctor-check-image')).getByTestId('doctor-detail-worded').textContent).toBe('img:1 已存在（sha256:x）。');
  });

  it('keeps the English detail, marked lang="en", for a case without words or an unknown key', () => {
    setLocale('zh-CN');
    const report = makeDoctorReport('p', {}, [makeDoctorCheck('shm', { detail: 'Only 1 GiB of shared memory.', say: { key: 'somethingNew', params: {} } })]);
    const { getByTestId } = render(DoctorPanel, { report });
    const detail = within(getByTestId('doctor-check-shm')).getByText('Only 1 GiB of shared memory.');
    expect(detail.getAttribute('lang')).toBe('en');
  });

  it('reads the same in English as the backend words it', () => {
    const report = makeDoctorReport('p', {}, [makeDoctorCheck('port', { detail: 'x', say: { key: 'portFree', params: { port: 10086, host: '' } } })]);
    const { getByTestId } = render(DoctorPanel, { report });
    expect(within(getByTestId('doctor-check-port')).getByTestId('doctor-detail-worded').textContent).toBe('Port 10086 is free on this computer.');
  });
});
