// The spec builder and "Show the command" against the documented `docker run` of AgentJet's swarm
// image (shared/reference/agentjet-swarm.md §4): pure functions, no engine.
import { describe, expect, it } from 'vitest';
import { dockerRunCommand, nativeRunCommand, quoteWord } from '../../../../electron/services/profiles/docker-run-command';
import { buildProfileSpec, configHashOf, expandHome } from '../../../../electron/services/profiles/spec-builder';
import { Profile, type ProfileInputRaw } from '../../../../electron/shared/schemas-profiles';

const SECRET = 'sk-canary-9f3b2a7c';

function profile(extra: Partial<ProfileInputRaw> & { updatedAt?: string } = {}): Profile {
  return Profile.parse({
    label: 'Qwen 7B',
    engineId: 'local',
    image: 'ghcr.io/modelscope/agentjet:main',
    model: { hostPath: '/data/models/Qwen2.5-7B', containerPath: '/mnt/models/Qwen2.5-7B' },
    logDir: '~/swarmlog',
    experimentsDir: '~/swarmexp',
    checkpointsDir: '/data/ckpt',
    env: [{ name: 'NCCL_NVLS_ENABLE', value: '0' }],
    secretEnv: ['SWANLAB_API_KEY'],
    id: 'qwen-7b',
    createdAt: '2026-12-03T00:00:00.000Z',
    updatedAt: '2026-12-03T00:00:00.000Z',
    ...extra,
  });
}

const options = { appVersion: '1.2.3', secrets: { SWANLAB_API_KEY: SECRET }, home: '/home/alice', nameSuffix: 'abc123' };

describe('buildProfileSpec (a profile → the container of the documented docker run)', () => {
  it('binds the model read-only and the log, experiments and checkpoints folders, ~/ expanded to the host home', () => {
    expect(buildProfileSpec(profile(), options).binds).toEqual([
      { hostPath: '/data/models/Qwen2.5-7B', containerPath: '/mnt/models/Qwen2.5-7B', readOnly: true },
      { hostPath: '/home/alice/swarmlog', containerPath: '/workspace/log', readOnly: false },
      { hostPath: '/home/alice/swarmexp', containerPath: '/workspace/saved_experiments', readOnly: false },
      { hostPath: '/data/ckpt', containerPath: '/workspace/saved_checkpoints', readOnly: false },
    ]);
    expect(buildProfileSpec(profile({ model: null, logDir: null, experimentsDir: null, checkpointsDir: null }), options).binds).toEqual([]);
  });

  it('labels the container as ours, with its profile, port, network and config hash', () => {
    const p = profile();
    expect(buildProfileSpec(p, options).labels).toEqual({
      'io.agentswarm.managed': 'true',
      'io.agentswarm.role': 'swarm-server',
      'io.agentswarm.port': '10086',
      'io.agentswarm.network': 'publish',
      'io.agentswarm.app-version': '1.2.3',
      'io.agentswarm.profile': 'qwen-7b',
      'io.agentswarm.config-hash': configHashOf(p),
    });
    expect(configHashOf(p)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('publishes on 127.0.0.1 only (the swarm API has no authentication), or uses the host network', () => {
    expect(buildProfileSpec(profile(), options).network).toEqual({ mode: 'publish', ports: [{ containerPort: 10086, hostIp: '127.0.0.1', hostPort: 10086 }] });
    expect(buildProfileSpec(profile({ networkMode: 'host', port: 10100 }), options).network).toEqual({ mode: 'host' });
  });

  it('asks for all GPUs, some by id, or none; shared memory by size or the host IPC namespace', () => {
    expect(buildProfileSpec(profile(), options)).toMatchObject({ gpus: { mode: 'all' }, shm: { mode: 'size', bytes: 32 * 1024 ** 3 } });
    expect(buildProfileSpec(profile({ gpus: { mode: 'ids', ids: ['0', '2'] } }), options).gpus).toEqual({ mode: 'ids', ids: ['0', '2'] });
    expect(buildProfileSpec(profile({ gpus: { mode: 'none' }, shm: { mode: 'ipc-host' } }), options)).toMatchObject({ gpus: { mode: 'none' }, shm: { mode: 'ipc-host' } });
  });

  it('sets plain-log env, the profile env and the secret values; runs ajet-swarm start on the port, under an init', () => {
    const spec = buildProfileSpec(profile({ port: 10090 }), options);
    expect(spec.env).toEqual({ NO_COLOR: '1', LOGURU_COLORIZE: 'NO', NCCL_NVLS_ENABLE: '0', SWANLAB_API_KEY: SECRET });
    expect(spec.cmd).toEqual(['ajet-swarm', 'start', '--swarm-port', '10090']);
    expect(spec).toMatchObject({ image: 'ghcr.io/modelscope/agentjet:main', init: true, name: 'agentswarm-qwen-7b-abc123', runtime: 'container' });
  });

  it('refuses to build without a value for every secret env name (SECRET_MISSING names it, never a value)', () => {
    expect(() => buildProfileSpec(profile(), { ...options, secrets: {} })).toThrow(expect.objectContaining({ code: 'SECRET_MISSING', message: expect.stringContaining('SWANLAB_API_KEY') }));
  });

  it('native mode: the host runs ajet-swarm start --swarm-port=<port> after the activate line, never --autokill', () => {
    const spec = buildProfileSpec(profile({ mode: 'native', nativeActivate: 'source ~/venv/bin/activate' }), options);
    expect(spec).toMatchObject({ runtime: 'native', nativeActivate: 'source ~/venv/bin/activate', cmd: ['ajet-swarm', 'start', '--swarm-port=10086'], binds: [] });
    expect(spec.cmd.join(' ')).not.toContain('autokill');
  });

  it('Slurm options go into spec.batch as parsed (native and container), none without them; the hash moves only when they are set', () => {
    const slurm = { partition: 'debug', timeLimit: '30', run: { mode: 'native', activate: 'source ~/venv/bin/activate' } } as const;
    const native = profile({ mode: 'native', slurm });
    const spec = buildProfileSpec(native, options);
    expect(spec.batch).toEqual(native.slurm);
    expect(spec.batch).toMatchObject({ partition: 'debug', timeLimit: '30', gpus: null, warnBeforeLimitSeconds: 300, run: { mode: 'native', activate: 'source ~/venv/bin/activate' } });
    expect(buildProfileSpec(profile({ slurm }), options).batch).toEqual(native.slurm);
    expect(profile().slurm).toBeNull();
    expect('batch' in buildProfileSpec(profile(), options)).toBe(false);
    expect(configHashOf(profile({ slurm: null }))).toBe(configHashOf(profile()));
    expect(configHashOf(profile({ slurm }))).not.toBe(configHashOf(profile()));
    expect(configHashOf(profile({ slurm: { ...slurm, timeLimit: '60' } }))).not.toBe(configHashOf(profile({ slurm })));
  });

  it('refuses Slurm options the job script could not hold (a partition starting with "-")', () => {
    expect(() => profile({ slurm: { partition: '-x', run: { mode: 'native' } } })).toThrow(/partition/);
  });

  it('expandHome: only a leading ~/ and only with a known home', () => {
    expect(expandHome('~/a/b', '/home/bob/')).toBe('/home/bob/a/b');
    expect(expandHome('/x/~/y', '/home/bob')).toBe('/x/~/y');
    expect(expandHome('~/a', null)).toBe('~/a');
  });
});

describe('configHashOf (drift detection)', () => {
  const base = configHashOf(profile());

  it('is stable: same settings, another label, key order, secret value or timestamps give the same hash', () => {
    expect(configHashOf(profile())).toBe(base);
    expect(configHashOf(profile({ label: 'Renamed', updatedAt: '2027-01-01T00:00:00.000Z' }))).toBe(base);
    const reordered = profile({ env: [{ name: 'NCCL_NVLS_ENABLE', value: '0' }], secretEnv: ['SWANLAB_API_KEY'] });
    expect(configHashOf(reordered)).toBe(base);
    // The hash is a function of the profile alone: a secret's value cannot reach it.
    expect(base).toBe(configHashOf(profile()));
  });

  it('changes with every setting that shapes the container', () => {
    const variants: Partial<ProfileInputRaw>[] = [
      { image: 'ghcr.modelscope.cn/modelscope/agentjet:main' },
      { port: 10087 },
      { networkMode: 'host' },
      { gpus: { mode: 'none' } },
      { gpus: { mode: 'ids', ids: ['1'] } },
      { shm: { mode: 'size', gb: 64 } },
      { shm: { mode: 'ipc-host' } },
      { model: { hostPath: '/data/models/other', containerPath: '/mnt/models/Qwen2.5-7B' } },
      { model: null },
      { logDir: '~/otherlog' },
      { experimentsDir: null },
      { checkpointsDir: '/data/ckpt2' },
      { env: [{ name: 'NCCL_NVLS_ENABLE', value: '1' }] },
      { secretEnv: [] },
      { mode: 'native' },
    ];
    const hashes = variants.map((v) => configHashOf(profile(v)));
    for (const h of hashes) expect(h).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

describe('dockerRunCommand ("Show the command")', () => {
  it('renders the documented docker run, detached, loopback-only, with labels, binds and masked secrets', () => {
    const p = profile();
    const command = dockerRunCommand(buildProfileSpec(p, options), p.secretEnv);
    const flat = command.replace(/ \\\n {2}/g, ' ');
    expect(flat).toContain('docker run -d --name agentswarm-qwen-7b-abc123 --init');
    expect(flat).toContain('--label io.agentswarm.profile=qwen-7b');
    expect(flat).toContain(`--label io.agentswarm.config-hash=${configHashOf(p)}`);
    expect(flat).toContain('-p 127.0.0.1:10086:10086');
    expect(flat).toContain('--gpus all --shm-size=32g');
    expect(flat).toContain('-v /data/models/Qwen2.5-7B:/mnt/models/Qwen2.5-7B:ro');
    expect(flat).toContain('-v /home/alice/swarmlog:/workspace/log');
    expect(flat).toContain('-v /data/ckpt:/workspace/saved_checkpoints');
    expect(flat).toContain('-e NO_COLOR=1 -e LOGURU_COLORIZE=NO -e NCCL_NVLS_ENABLE=0 -e SWANLAB_API_KEY=****');
    expect(flat.endsWith('ghcr.io/modelscope/agentjet:main ajet-swarm start --swarm-port 10086')).toBe(true);
    expect(command).not.toContain(SECRET);
  });

  it('quotes what the shell would change, GPU ids with their inner quotes, host network and IPC host', () => {
    const p = profile({ gpus: { mode: 'ids', ids: ['0', '1'] }, shm: { mode: 'ipc-host' }, networkMode: 'host', env: [{ name: 'A', value: "it's $HOME" }] });
    const flat = dockerRunCommand(buildProfileSpec(p, options), p.secretEnv).replace(/ \\\n {2}/g, ' ');
    expect(flat).toContain(`--network host --gpus '"device=0,1"' --ipc=host`);
    expect(flat).toContain(`-e 'A=it'"'"'s $HOME'`);
    expect(flat).not.toContain('-p ');
    expect(quoteWord('plain/path:x')).toBe('plain/path:x');
    expect(quoteWord('a b')).toBe("'a b'");
  });

  it('on Podman: podman run, GPUs as CDI devices (all, or one per index), never --gpus', () => {
    const byIndex = profile({ gpus: { mode: 'ids', ids: ['0', '2'] } });
    const flat = dockerRunCommand(buildProfileSpec(byIndex, options), byIndex.secretEnv, 'podman').replace(/ \\\n {2}/g, ' ');
    expect(flat.startsWith('podman run -d --name ')).toBe(true);
    expect(flat).toContain('--device nvidia.com/gpu=0 --device nvidia.com/gpu=2');
    expect(flat).not.toContain('--gpus');
    const all = profile({ gpus: { mode: 'all' } });
    expect(dockerRunCommand(buildProfileSpec(all, options), all.secretEnv, 'podman')).toContain('--device nvidia.com/gpu=all');
  });

  it('leaves ~/ for the shell on the server to expand when the home is unknown', () => {
    const p = profile();
    const flat = dockerRunCommand(buildProfileSpec(p, { ...options, home: null }), p.secretEnv);
    expect(flat).toContain('-v ~/swarmlog:/workspace/log');
  });

  it('native mode: a detached, own-session command line with pid and log files; secrets masked', () => {
    const p = profile({ mode: 'native', nativeActivate: 'source ~/venv/bin/activate' });
    const command = nativeRunCommand(buildProfileSpec(p, options), p.secretEnv);
    expect(command).toContain('nohup setsid sh -c ');
    expect(command).toContain('source ~/venv/bin/activate && exec env NO_COLOR=1');
    expect(command).toContain('SWANLAB_API_KEY=****');
    expect(command).toContain('ajet-swarm start --swarm-port=10086');
    expect(command).toContain('>> ~/.agentswarm/run/agentswarm-qwen-7b-abc123/server.log 2>&1 < /dev/null &');
    expect(command).toContain('echo $! > ~/.agentswarm/run/agentswarm-qwen-7b-abc123/pid');
    expect(command).not.toContain(SECRET);
    expect(command).not.toContain('autokill');
  });
});
