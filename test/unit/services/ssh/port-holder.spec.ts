// /proc parsing for "who holds this port", on fixture text and a fixture /proc tree (symlinks
// whose targets read like the kernel's `socket:[inode]`), so it runs the same on any machine.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describePortHolder, findPortHolder, listeningInodes, socketInodeOfLink } from '../../../../electron/services/ssh/port-holder';

// Real lines from /proc/net/tcp: port 0x2766 = 10086, 0x0CEA = 3306, 0x08AE = 2222.
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2766 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242001 1 0000000000000000 100 0 0 10 0
   1: 00000000:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   107        0 4242002 1 0000000000000000 100 0 0 10 0
   2: 0100007F:08AE 0100007F:2766 01 00000000:00000000 00:00000000 00000000     0        0 4242003 1 0000000000000000 20 4 30 10 -1
   3: 0A00020F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242004 1 0000000000000000 100 0 0 10 0
   4: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 0 1 0000000000000000 100 0 0 10 0
   garbage line
`;

// /proc/net/tcp6: "::" on 8080 (0x1F90), "::1" on 9000 (0x2328), ::ffff:127.0.0.1 on 9001 (0x2329), 2001:db8::1 on 9002.
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5550001 1 0000000000000000 100 0 0 10 0
   1: 00000000000000000000000001000000:2328 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5550002 1 0000000000000000 100 0 0 10 0
   2: 0000000000000000FFFF00000100007F:2329 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5550003 1 0000000000000000 100 0 0 10 0
   3: B80D0120000000000000000001000000:232A 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5550004 1 0000000000000000 100 0 0 10 0
`;

describe('listeningInodes', () => {
  it('finds listeners on 127.0.0.1 and on the wildcard, by port', () => {
    expect(listeningInodes(TCP, 10086)).toEqual(['4242001']);
    expect(listeningInodes(TCP, 3306)).toEqual(['4242002']);
  });

  it('ignores connections (state 01), listeners on other interfaces, inode 0 and malformed lines', () => {
    expect(listeningInodes(TCP, 2222)).toEqual([]);
    expect(listeningInodes(TCP, 8080)).toEqual([]); // 10.0.2.15:8080 does not block 127.0.0.1
    expect(listeningInodes(TCP, 8081)).toEqual([]);
    expect(listeningInodes('', 10086)).toEqual([]);
  });

  it('reads IPv6 listeners that block 127.0.0.1 (::, ::1, ::ffff:127.0.0.1) and skips others', () => {
    expect(listeningInodes(TCP6, 8080)).toEqual(['5550001']);
    expect(listeningInodes(TCP6, 9000)).toEqual(['5550002']);
    expect(listeningInodes(TCP6, 9001)).toEqual(['5550003']);
    expect(listeningInodes(TCP6, 9002)).toEqual([]);
  });
});

describe('socketInodeOfLink', () => {
  it('reads socket links and nothing else', () => {
    expect(socketInodeOfLink('socket:[4242001]')).toBe('4242001');
    expect(socketInodeOfLink('pipe:[4242001]')).toBeNull();
    expect(socketInodeOfLink('/dev/null')).toBeNull();
    expect(socketInodeOfLink('anon_inode:[eventpoll]')).toBeNull();
  });
});

describe('findPortHolder', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function fixtureProc(): string {
    root = mkdtempSync(join(tmpdir(), 'agentswarm-proc-'));
    mkdirSync(join(root, 'net'));
    writeFileSync(join(root, 'net/tcp'), TCP);
    writeFileSync(join(root, 'net/tcp6'), TCP6);
    const proc = (pid: number, comm: string | null, links: string[]) => {
      mkdirSync(join(root, String(pid), 'fd'), { recursive: true });
      if (comm !== null) writeFileSync(join(root, String(pid), 'comm'), `${comm}\n`);
      links.forEach((link, fd) => symlinkSync(link, join(root, String(pid), 'fd', String(fd))));
    };
    proc(100, 'bash', ['/dev/pts/0', 'pipe:[77]']);
    proc(4242, 'python3', ['/dev/null', 'socket:[99]', 'socket:[4242001]']);
    proc(5000, 'node', ['socket:[5550002]']);
    proc(6000, null, ['socket:[5550003]']);
    mkdirSync(join(root, 'self'));
    return root;
  }

  it('maps the port to its inode and the inode to the process holding it, with its comm', async () => {
    const proc = fixtureProc();
    expect(await findPortHolder(10086, proc)).toEqual({ pid: 4242, command: 'python3' });
    expect(await findPortHolder(9000, proc)).toEqual({ pid: 5000, command: 'node' });
    expect(await findPortHolder(9001, proc)).toEqual({ pid: 6000, command: 'unknown' });
    expect(describePortHolder({ pid: 4242, command: 'python3' })).toBe('python3 (pid 4242)');
  });

  it('is null when no process shows the socket (another user\'s process), nothing listens, or there is no /proc', async () => {
    const proc = fixtureProc();
    expect(await findPortHolder(3306, proc)).toBeNull();
    expect(await findPortHolder(12345, proc)).toBeNull();
    expect(await findPortHolder(10086, join(proc, 'missing'))).toBeNull();
  });

  it.runIf(process.platform === 'linux')('names this very process when it listens on the port (the real /proc)', async () => {
    const server = net.createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const { port } = server.address() as net.AddressInfo;
      const holder = await findPortHolder(port);
      expect(holder?.pid).toBe(process.pid);
      expect(holder?.command.length).toBeGreaterThan(0);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});
