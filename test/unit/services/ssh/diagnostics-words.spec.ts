// Issue 32: "Test connection" sends what each stage saw and its fix as data (say, sayFix), and every
// key it sends has words in the renderer's dictionaries, in English and in Chinese.
import { describe, expect, it } from 'vitest';
import { dockerCliResult, gpuResult, socketAccessResult } from '../../../../electron/services/ssh/remote-checks';
import { partitionFacts, parsePartitionLines, slurmStageResult } from '../../../../electron/services/ssh/slurm-check';
import type { StageResult } from '../../../../electron/services/ssh/stage-result';
import { DiagnosticStage } from '../../../../electron/shared/schemas-servers';
import { en } from '../../../../renderer/src/lib/i18n/en';
import { zhCN } from '../../../../renderer/src/lib/i18n/zh-CN';

const HOST = 'alice@gpu:22';

/** Every finding the pure checks can make (the SSH-side stages are covered by the integration tests). */
function findings() {
  const docker = (verdict: string, groups = 'alice users') => socketAccessResult([verdict, groups, 'root:docker 660'], '/var/run/docker.sock', 'alice', HOST);
  const podman = (verdict: string) => socketAccessResult([verdict, 'alice', 'root:root 600'], '/run/podman/podman.sock', 'alice', HOST, 'podman');
  const slurm = (stdout: string) => slurmStageResult(stdout, HOST, 'alice');
  return {
    dockerOk: docker('ok'),
    dockerMissing: docker('missing'),
    dockerNotSocket: docker('not-a-socket'),
    dockerDenied: docker('denied'),
    dockerDeniedInGroup: docker('denied', 'alice docker'),
    dockerUnknown: docker('weird'),
    podmanOk: podman('ok'),
    podmanMissing: podman('missing'),
    podmanNotSocket: podman('not-a-socket'),
    podmanDenied: podman('denied'),
    cliOk: dockerCliResult({ stdout: '27.5.1\n', stderr: '', code: 0 }, 'alice', HOST),
    cliMissing: dockerCliResult({ stdout: '', stderr: 'sh: docker: not found', code: 127 }, 'alice', HOST),
    cliDenied: dockerCliResult({ stdout: '', stderr: 'permission denied while trying to connect to the Docker daemon socket', code: 1 }, 'alice', HOST),
    cliFailed: dockerCliResult({ stdout: '', stderr: 'Cannot connect to the Docker daemon', code: 1 }, 'alice', HOST),
    cliFailedCode: dockerCliResult({ stdout: '', stderr: '', code: 2 }, 'alice', HOST),
    gpus: gpuResult({ stdout: 'GPU 0: NVIDIA A100 (UUID: GPU-1)\n', stderr: '', code: 0 }, HOST),
    noNvidiaSmi: gpuResult({ stdout: '', stderr: 'nvidia-smi: command not found', code: 127 }, HOST),
    noGpuListed: gpuResult({ stdout: '', stderr: '', code: 6 }, HOST),
    noGpuListedSaid: gpuResult({ stdout: 'No devices were found\n', stderr: '', code: 6 }, HOST),
    slurmOk: slurm('@@version 0\nslurm-wlm 22.05.8\n@@partitions 0\ndebug*|up|1|idle|gpu:fake:2\n'),
    slurmNoGpu: slurm('@@version 0\nslurm 23.11.4\n@@partitions 0\ncpu*|up|8|idle|(null)\n'),
    slurmNoPartition: slurm('@@version 0\nslurm-wlm 22.05.8\n@@partitions 0\n'),
    slurmMissing: slurm('@@missing\n'),
    slurmNoConf: slurm('@@noconf /opt/slurm/etc/slurm.conf\n'),
    slurmNoAnswer: slurm(''),
    slurmNoAnswerSaid: slurm('bash: warning\n'),
    slurmVersionTimeout: slurm('@@version 124\n@@partitions 0\n'),
    slurmVersionFailed: slurm('@@version 1\nsinfo: error: resolve_ctls_from_dns_srv: res_nsearch error\n@@partitions 0\n'),
    slurmCtldTimeout: slurm('@@version 0\nslurm-wlm 22.05.8\n@@partitions 124\n'),
    slurmCtldDown: slurm('@@version 0\nslurm-wlm 22.05.8\n@@partitions 1\nslurm_load_partitions: Unable to contact slurm controller (connect failure)\n'),
  } satisfies Record<string, StageResult>;
}

describe('connection-test findings as data', () => {
  it('says what each check found with its facts, and each problem’s fix', () => {
    const all = findings();
    expect(all.dockerDenied).toMatchObject({
      say: { key: 'socketDenied', params: { path: '/var/run/docker.sock', user: 'alice', host: HOST, owner: 'root:docker 660', groups: 'alice users' } },
      sayFix: { key: 'dockerAddGroup', params: { user: 'alice' } },
    });
    expect(all.dockerDeniedInGroup.sayFix?.key).toBe('dockerSocketGroup');
    expect(all.podmanDenied.sayFix).toEqual({ key: 'podmanSocketDenied', params: expect.objectContaining({ user: 'alice' }) });
    // A program's own output travels as `said`, quoted by the renderer as it is.
    expect(all.dockerUnknown.say).toEqual({ key: 'socketUnknown', params: { path: '/var/run/docker.sock', host: HOST, said: 'weird' } });
    expect(all.noGpuListedSaid.say).toEqual({ key: 'noGpuListedSaid', params: { host: HOST, said: 'No devices were found' } });
    expect(all.cliFailedCode.say).toEqual({ key: 'cliFailedCode', params: { host: HOST, code: 2 } });
    expect(all.slurmNoConf).toMatchObject({ say: { key: 'slurmNoConf', params: { path: '/opt/slurm/etc/slurm.conf', user: 'alice' } }, sayFix: { key: 'slurmNoConf' } });
    // Slurm's own error (mapped from sinfo's stderr) keeps its text: only the fix is worded.
    expect(all.slurmVersionFailed.say).toBeUndefined();
    expect(all.slurmVersionFailed.sayFix).toEqual({ key: 'slurmVersion', params: { host: HOST, user: 'alice' } });
    expect(partitionFacts(parsePartitionLines('gpu*|up|3|mix|gpu:a100:4\ngpu*|up|1|idle|gpu:a100:4\ncpu|down|8|idle|(null)\n'))).toBe('gpu* 3×mix,1×idle gpu:a100:4; cpu 8×idle (down) –');
  });

  it('every key it sends has words in en and zh-CN, with the same placeholders filled from its params', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();
    for (const [name, result] of Object.entries(findings())) {
      const stage = DiagnosticStage.parse({ stage: 'gpus', durationMs: 1, error: null, fix: null, ...result });
      const pairs = [
        ['diag.say', stage.say],
        ['diag.sayFix', stage.sayFix],
      ] as const;
      for (const [prefix, say] of pairs) {
        if (!say) continue;
        const key = `${prefix}.${say.key}` as keyof typeof en;
        expect(en[key], `${name}: ${key}`).toBeTypeOf('string');
        expect(zhCN[key], `${name}: ${key}`).toBeTypeOf('string');
        for (const placeholder of placeholders(en[key])) expect(Object.keys(say.params), `${name}: ${key} {${placeholder}}`).toContain(placeholder);
      }
      // A problem always has a fix in words; a finding in words for every pass.
      if (result.status !== 'pass') expect(stage.sayFix, name).toBeDefined();
      else expect(stage.say, name).toBeDefined();
    }
  });
});

describe('the keys the connection stages send', () => {
  it('each words(…) key in the SSH checks’ sources has words as a finding, a fix or a method not tried', async () => {
    const { readFile } = await import('node:fs/promises');
    const files = ['connection-diagnostics.ts', 'remote-checks.ts', 'slurm-check.ts'];
    const keys = new Set<string>();
    for (const file of files) {
      const source = await readFile(new URL(`../../../../electron/services/ssh/${file}`, import.meta.url), 'utf8');
      for (const m of source.matchAll(/words\(\s*'([a-zA-Z-]+)'/g)) keys.add(m[1]!);
      for (const m of source.matchAll(/\? '([a-z][a-zA-Z-]*)' : /g)) keys.add(m[1]!);
      // The TCP and banner failures name their words in the error's params (`diag`).
      for (const m of source.matchAll(/'((?:tcp|banner)[A-Z][a-zA-Z]*)'/g)) keys.add(m[1]!);
    }
    // Built from parts: the engine's answer through each transport, and when it is not the product set up.
    for (const place of ['Socket', 'DialStdio', 'UserSocket']) for (const differs of ['', 'Differs']) keys.add(`version${place}${differs}`);
    expect(keys.size).toBeGreaterThan(40);
    const dictionary = en as Record<string, string>;
    for (const key of keys) expect(dictionary[`diag.say.${key}`] ?? dictionary[`diag.sayFix.${key}`] ?? dictionary[`diag.notTried.${key}`], key).toBeTypeOf('string');
  });
});
