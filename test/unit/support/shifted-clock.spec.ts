// The shifted clock of `npm run test:shifted-clock` (scripts/shifted-clock.mjs) is in force exactly when asked:
// checked against the kernel's wall clock (a file's mtime), which the shift cannot reach, in this process and in a
// Node child (the fakes that run as processes of their own must agree with the tests on the time).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const days = Number(process.env.AGENTSWARM_TEST_CLOCK_SHIFT_DAYS ?? '0');
const shiftMs = days * 86_400_000;

function kernelNowMs(): number {
  const dir = mkdtempSync(join(tmpdir(), 'clock-'));
  try {
    writeFileSync(join(dir, 'now'), '');
    return statSync(join(dir, 'now')).mtimeMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe(`the test clock (shifted by ${days} days)`, () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('Date.now() and new Date() read the wall clock plus the shift', () => {
    const kernel = kernelNowMs();
    expect(Math.abs(Date.now() - shiftMs - kernel)).toBeLessThan(5_000);
    expect(Math.abs(new Date().getTime() - shiftMs - kernel)).toBeLessThan(5_000);
    expect(new Date()).toBeInstanceOf(Date);
    expect(typeof Date()).toBe('string');
  });

  it('dates built from a value stay as given', () => {
    expect(new Date('2026-12-05T00:00:00.000Z').toISOString()).toBe('2026-12-05T00:00:00.000Z');
    expect(new Date(0).getTime()).toBe(0);
    expect(Date.parse('2026-12-05T00:00:00.000Z')).toBe(1_796_428_800_000);
  });

  it('is back after a test that used fake timers', () => {
    vi.useFakeTimers({ now: 0, toFake: ['Date'] });
    expect(Date.now()).toBe(0);
    vi.useRealTimers();
    // vitest puts back the Date it found when it loaded: the shifted one (checked by the next test).
  });

  it('still shifts after that test', () => {
    expect(Math.abs(Date.now() - shiftMs - kernelNowMs())).toBeLessThan(5_000);
  });

  it('shifts a Node child the same way', () => {
    const child = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(Date.now()))'], { encoding: 'utf8' }));
    expect(Math.abs(child - shiftMs - kernelNowMs())).toBeLessThan(5_000);
  });
});
