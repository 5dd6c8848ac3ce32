// The real-service test bed itself: dockerd on the default socket, the local registry, sshd with the
// swarmtest user in every auth mode, the jump sshd, and the Podman services. Needs `bash test/testbed/testbed.sh up`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import Docker from 'dockerode';
import { Client, type ConnectConfig } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { podmanBedService, removePodmanContainerNow, type PodmanBedKind } from '../support/podman-bed';
import { TEST_CONTAINER_LABELS } from '../support/test-app';
import { loadTestbedWithJump, loadTestbedWithPodman } from '../testbed/testbed';

const tb = loadTestbedWithJump();

function fingerprint(key: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

interface SshError extends Error {
  level?: string;
}

/** Connects with the given auth, checking the host key against `expected`; resolves the ready client. */
function connect(
  auth: Partial<ConnectConfig>,
  expected = tb.ssh.hostKeyFingerprint,
  port = tb.ssh.port,
): Promise<{ conn: Client; seen: string[] }> {
  const seen: string[] = [];
  return new Promise((resolve, reject) => {
    const conn = new Client();
    conn.once('ready', () => resolve({ conn, seen }));
    conn.once('error', (err) => {
      conn.end();
      reject(err);
    });
    conn.connect({
      host: tb.ssh.host,
      port,
      username: tb.ssh.user,
      readyTimeout: 20_000,
      hostVerifier: (key: Buffer) => {
        seen.push(fingerprint(key));
        return fingerprint(key) === expected;
      },
      ...auth,
    });
  });
}

function exec(conn: Client, command: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    conn.exec(command, (err, stream) => {
      if (err) return reject(err);
      let stdout = '';
      let stderr = '';
      stream.on('data', (d: Buffer) => (stdout += d.toString()));
      stream.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      stream.on('close', (code: number | null) => resolve({ code, stdout, stderr }));
    });
  });
}

describe('test bed: docker', () => {
  it('answers _ping and version on the default socket', async () => {
    expect(tb.dockerSocket).toBe('/var/run/docker.sock');
    const docker = new Docker({ socketPath: tb.dockerSocket });
    expect(String(await docker.ping())).toBe('OK');
    const image = await docker.getImage(tb.fakeSwarmImage).inspect();
    expect(image.Config.Labels?.['io.agentswarm.fixture-hash']).toBe(tb.fakeSwarmFixtureHash);
    expect(image.Config.Cmd).toEqual(['ajet-swarm', 'start']);
  });

  // The network rule: the test daemon has no bridge (--bridge=none), so containers get only host or none.
  it('runs without a bridge network', async () => {
    const docker = new Docker({ socketPath: tb.dockerSocket });
    const names = (await docker.listNetworks()).map((n) => n.Name).sort();
    expect(names).toEqual(['host', 'none']);
  });
});

describe('test bed: registry', () => {
  it('serves the v2 API on 127.0.0.1:5000 without auth and lists the fake swarm image', async () => {
    expect(tb.registry).toBe('127.0.0.1:5000');
    const v2 = await fetch(`${tb.registryUrl}/v2/`);
    expect(v2.status).toBe(200);
    expect(v2.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    const catalog = (await (await fetch(`${tb.registryUrl}/v2/_catalog`)).json()) as { repositories: string[] };
    expect(catalog.repositories).toContain('agentswarm-test/fake-swarm');
    const tags = (await (await fetch(`${tb.registryUrl}/v2/agentswarm-test/fake-swarm/tags/list`)).json()) as { tags: string[] };
    expect(tags).toEqual({ name: 'agentswarm-test/fake-swarm', tags: ['1'] });
  });
});

describe('test bed: sshd', () => {
  const docker = new Docker({ socketPath: tb.dockerSocket });
  const modes: Array<[string, () => Partial<ConnectConfig>]> = [
    ['plain key', () => ({ privateKey: readFileSync(tb.ssh.plainKeyPath) })],
    ['encrypted key + passphrase', () => ({ privateKey: readFileSync(tb.ssh.encryptedKeyPath), passphrase: tb.ssh.encryptedKeyPassphrase })],
    ['password', () => ({ password: tb.ssh.password })],
  ];

  it('publishes the host key fingerprint of the host public key file', () => {
    const [, b64] = readFileSync(tb.ssh.hostPublicKeyPath, 'utf8').trim().split(/\s+/);
    expect(fingerprint(Buffer.from(b64 ?? '', 'base64'))).toBe(tb.ssh.hostKeyFingerprint);
    expect(tb.ssh.hostKeyFingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it.each(modes)('logs in with %s, verifies the host key and reaches the docker daemon', async (_name, auth) => {
    const { conn, seen } = await connect(auth());
    try {
      expect(seen).toEqual([tb.ssh.hostKeyFingerprint]);
      const who = await exec(conn, 'id -un; id -Gn');
      expect(who.code).toBe(0);
      const [user, groups] = who.stdout.trim().split('\n');
      expect(user).toBe(tb.ssh.user);
      expect(groups?.split(' ')).toContain('docker');
      const version = await exec(conn, "docker version --format '{{.Server.Version}}'");
      expect(version.stderr).toBe('');
      expect(version.code).toBe(0);
      expect(version.stdout.trim()).toBe((await docker.version()).Version);
    } finally {
      conn.end();
    }
  });

  it('rejects a wrong host fingerprint during the handshake', async () => {
    const wrong = 'SHA256:' + 'A'.repeat(43);
    const err = (await connect({ privateKey: readFileSync(tb.ssh.plainKeyPath) }, wrong).then(
      () => new Error('connected'),
      (e: unknown) => e,
    )) as SshError;
    expect(err.message).toBe('Host denied (verification failed)');
    expect(err.level).toBe('handshake');
  });

  it('rejects a wrong password', async () => {
    const err = (await connect({ password: 'not-the-password' }).then(
      () => new Error('connected'),
      (e: unknown) => e,
    )) as SshError;
    expect(err.message).toBe('All configured authentication methods failed');
    expect(err.level).toBe('client-authentication');
  });
});

describe('test bed: jump sshd (ProxyJump host)', () => {
  const key = () => ({ privateKey: readFileSync(tb.ssh.plainKeyPath) });

  it('has its own host key, published with its fingerprint', () => {
    const [, b64] = readFileSync(tb.jump.hostPublicKeyPath, 'utf8').trim().split(/\s+/);
    expect(fingerprint(Buffer.from(b64 ?? '', 'base64'))).toBe(tb.jump.hostKeyFingerprint);
    expect(tb.jump.hostKeyFingerprint).not.toBe(tb.ssh.hostKeyFingerprint);
    expect([tb.jump.host, tb.jump.port]).toEqual(['127.0.0.1', 2223]);
  });

  it('lets the same user in with the same key and password, and forwards TCP to the target sshd', async () => {
    for (const auth of [key(), { password: tb.ssh.password }]) {
      const { conn, seen } = await connect(auth, tb.jump.hostKeyFingerprint, tb.jump.port);
      try {
        expect(seen).toEqual([tb.jump.hostKeyFingerprint]);
        const banner = await new Promise<string>((resolve, reject) => {
          conn.forwardOut('127.0.0.1', 0, tb.ssh.host, tb.ssh.port, (err, stream) => {
            if (err) return reject(err);
            stream.once('data', (d: Buffer) => {
              resolve(d.toString('latin1').split('\r\n')[0] ?? '');
              stream.close();
            });
          });
        });
        expect(banner).toMatch(/^SSH-2\.0-OpenSSH_/);
      } finally {
        conn.end();
      }
    }
  });

  it('refuses streamlocal forwarding that the target sshd allows (it only relays TCP, like a bastion)', async () => {
    const openDockerSocket = async (port: number, expected: string): Promise<string> => {
      const { conn } = await connect(key(), expected, port);
      try {
        return await new Promise<string>((resolve) => {
          conn.openssh_forwardOutStreamLocal(tb.dockerSocket, (e, stream) => {
            stream?.close();
            resolve(e ? e.message : 'opened');
          });
        });
      } finally {
        conn.end();
      }
    };
    expect(await openDockerSocket(tb.jump.port, tb.jump.hostKeyFingerprint)).toBe('(SSH) Channel open failure: open failed');
    expect(await openDockerSocket(tb.ssh.port, tb.ssh.hostKeyFingerprint)).toBe('opened');
  });
});

/** One GET on a unix socket: status, headers and body, nothing in between (dockerode hides the headers). */
function getOnSocket(socketPath: string, path: string): Promise<{ status: number; server: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, server: String(res.headers.server ?? ''), body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each<PodmanBedKind>(['rootful', 'rootless'])('test bed: podman %s service (as root, through its socket)', (kind) => {
  const ptb = loadTestbedWithPodman();
  const { socketPath, docker: podman } = podmanBedService(kind, ptb);

  it('answers _ping as Libpod and /version as the Podman Engine', async () => {
    const ping = await getOnSocket(socketPath, '/_ping');
    expect([ping.status, ping.body]).toEqual([200, 'OK']);
    expect(ping.server).toBe(`Libpod/${ptb.podman.version} (linux)`);
    const version = JSON.parse((await getOnSocket(socketPath, '/version')).body) as { Components: Array<{ Name: string; Version: string }> };
    expect(version.Components[0]).toMatchObject({ Name: 'Podman Engine', Version: ptb.podman.version });
    expect(ptb.podman.version).toBe('4.3.1');
  });

  it('has the fake swarm image under both names, the same image as in Docker', async () => {
    expect(ptb.podman.image).toBe(ptb.fakeSwarmImage);
    const inDocker = await new Docker({ socketPath: ptb.dockerSocket }).getImage(ptb.fakeSwarmImage).inspect();
    for (const name of [ptb.fakeSwarmImage, ptb.fakeSwarmLocalImage]) {
      const image = await podman.getImage(name).inspect();
      expect(image.Id).toBe(inDocker.Id);
      expect(image.Config.Labels?.['io.agentswarm.fixture-hash']).toBe(ptb.fakeSwarmFixtureHash);
      expect(image.Config.Cmd).toEqual(['ajet-swarm', 'start']);
    }
  });

  // Init, host networking and no ulimits of our own: what the app asks for. On rootful Podman this starts only
  // because the service was started with the test bed's containers.conf (the sandbox's ulimits fix); rootless
  // Podman keeps to the user's own limits and needs none.
  it('starts a container with Init and host networking, and stops it with SIGTERM through the init (exit 143)', async () => {
    const container = await podman.createContainer({
      Image: ptb.podman.image,
      Cmd: ['node', '-e', 'setInterval(() => {}, 1000)'],
      Labels: TEST_CONTAINER_LABELS,
      HostConfig: { Init: true, NetworkMode: 'host' },
    });
    try {
      await container.start();
      const running = await container.inspect();
      expect(running.State.Status).toBe('running');
      expect(running.Path).toBe('/run/podman-init');
      expect(running.HostConfig.NetworkMode).toBe('host');
      // Podman's compat create stores StopTimeout 0 when none is given (Docker: 10), so name the timeout.
      await container.stop({ t: 10 });
      const stopped = await container.inspect();
      expect([stopped.State.Status, stopped.State.ExitCode]).toEqual(['exited', 143]);
    } finally {
      await removePodmanContainerNow(podman, container.id);
    }
  });
});

describe('test bed: podman rootful storage', () => {
  it('is the private one under the state dir, not /var/lib/containers', async () => {
    const ptb = loadTestbedWithPodman();
    const info = (await podmanBedService('rootful', ptb).docker.info()) as { DockerRootDir: string; Driver: string };
    expect(info.DockerRootDir).toBe(ptb.podman.rootful.root);
    expect(info.Driver).toBe('overlay');
    expect(ptb.podman.rootful.socket.startsWith(ptb.stateDir + '/')).toBe(true);
    expect(readFileSync(ptb.podman.rootful.containersConf, 'utf8')).toMatch(/^default_ulimits = \["nofile=\d+:\d+", "nproc=\d+:\d+"\]$/m);
  });
});

describe('test bed: podman rootless user over sshd', () => {
  const ptb = loadTestbedWithPodman();
  const rootless = ptb.podman.rootless;
  const asPodUser = () => ({ username: rootless.user, privateKey: readFileSync(ptb.ssh.plainKeyPath) });

  /** Raw HTTP/1.0 GET over an SSH streamlocal channel to a unix socket on the server: the app's transport. */
  function getOverStreamLocal(conn: Client, socketPath: string, path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      conn.openssh_forwardOutStreamLocal(socketPath, (err, stream) => {
        if (err) return reject(err);
        let response = '';
        stream.on('data', (d: Buffer) => (response += d.toString()));
        stream.on('close', () => resolve(response));
        stream.end(`GET ${path} HTTP/1.0\r\nHost: podman\r\n\r\n`);
      });
    });
  }

  it('has its runtime dir at /run/user/<uid> and storage on overlay', () => {
    expect(rootless.runtimeDir).toBe(`/run/user/${rootless.uid}`);
    expect(rootless.socket).toBe(`${rootless.runtimeDir}/podman/podman.sock`);
    expect(rootless.user).not.toBe(ptb.ssh.user);
  });

  it('logs in with the plain key, without XDG_RUNTIME_DIR, and podman finds its service and overlay storage', async () => {
    const { conn, seen } = await connect(asPodUser());
    try {
      expect(seen).toEqual([ptb.ssh.hostKeyFingerprint]);
      const who = await exec(conn, 'id -un; id -u; echo "${XDG_RUNTIME_DIR-unset}"');
      expect(who.stdout.trim().split('\n')).toEqual([rootless.user, String(rootless.uid), 'unset']);
      // What the app's discovery runs over SSH: podman falls back to /run/user/<uid> when XDG_RUNTIME_DIR is unset.
      const info = await exec(conn, "podman info --format '{{.Host.RemoteSocket.Path}} {{.Host.RemoteSocket.Exists}} {{.Host.Security.Rootless}} {{.Store.GraphDriverName}}'");
      expect(info.stderr).toBe('');
      expect(info.stdout.trim()).toBe(`${rootless.socket} true true overlay`);
      const image = await exec(conn, `podman image exists ${ptb.podman.image} && podman image exists ${ptb.fakeSwarmLocalImage} && echo both`);
      expect(image.stdout.trim()).toBe('both');
    } finally {
      conn.end();
    }
  });

  it('opens its own socket through streamlocal and gets a Libpod answer; the Docker test user cannot', async () => {
    const { conn } = await connect(asPodUser());
    try {
      const ping = await getOverStreamLocal(conn, rootless.socket, '/_ping');
      expect(ping).toMatch(/^HTTP\/1\.0 200 OK\r\n/);
      expect(ping).toContain(`\r\nServer: Libpod/${ptb.podman.version} (linux)\r\n`);
      expect(ping.endsWith('\r\n\r\nOK')).toBe(true);
    } finally {
      conn.end();
    }
    // The socket is the user's own (0600): another login gets sshd's one answer for a missing or forbidden socket.
    const other = await connect({ privateKey: readFileSync(ptb.ssh.plainKeyPath) });
    try {
      await expect(getOverStreamLocal(other.conn, rootless.socket, '/_ping')).rejects.toThrow('(SSH) Channel open failure: open failed');
    } finally {
      other.conn.end();
    }
  });
});
