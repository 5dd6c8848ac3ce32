/**
 * Child processes of `npm run bench -- tunnel` (scripts/bench-tunnel.ts), so that each party runs
 * in its own process as it does for real (the swarm server, `ssh -N -L`, the app):
 *   server          an HTTP server on 127.0.0.1 (TEST DOUBLE of the swarm API's transport):
 *                   /big?mb=N streams N MiB, anything else answers 13 bytes.
 *   tunnel <port>   our SshTunnel to 127.0.0.1:<port> over one SshConnection to the test bed's sshd.
 * Each prints `READY <port>` on stdout once it listens.
 */
import http from 'node:http';
import { SshTunnel } from '../electron/services/ssh/tunnel';
import { loadTestbed } from '../test/testbed/testbed';
import { connectToTestbed } from '../test/support/testbed-ssh';

const MIB = Buffer.alloc(1024 * 1024, 'x');

async function server(): Promise<void> {
  const srv = http.createServer((req, res) => {
    const big = /^\/big\?mb=(\d+)$/.exec(req.url ?? '');
    if (!big) return void res.end('hello, swarm\n');
    let left = Number(big[1]);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': left * MIB.length });
    const pump = () => {
      while (left > 0) {
        left -= 1;
        if (!res.write(MIB)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  srv.keepAliveTimeout = 120_000;
  srv.listen(0, '127.0.0.1', () => console.log(`READY ${(srv.address() as { port: number }).port}`));
}

async function tunnel(remotePort: number): Promise<void> {
  const tb = loadTestbed();
  const connection = await connectToTestbed({}, tb);
  const t = await SshTunnel.open({ openChannel: () => connection.forwardOut('127.0.0.1', remotePort), remotePort, localPort: 0 });
  console.log(`READY ${t.localPort}`);
}

const [role, arg] = process.argv.slice(2);
(role === 'server' ? server() : tunnel(Number(arg))).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
