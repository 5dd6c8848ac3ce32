// A swarm server's first seconds over SSH are "starting", not "degraded" (issue 31: every Start over SSH read
// "Degraded (ECONNRESET)" for about 5 s, because the first probe ran before the server listened). The tunnel here is
// real (a loopback listener whose sockets open a TCP channel to the "remote" port, as ssh2's forwardOut would), and
// so is the probe (GET /get_engine_status through it); only the clock is the test's, to cross the grace exactly.
import { connect } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerTunnels } from '../../../../electron/services/ssh/server-tunnels';
import { freePort } from '../../../support/helpers';

/** The swarm server on the "remote" port: answers GET /get_engine_status as upstream does. */
async function swarmServer(port: number): Promise<HttpServer> {
  const server = createHttpServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ engine_status: 'ENGINE.OFFLINE', global_step: 0 }));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

let clean: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of clean.reverse()) await step();
  clean = [];
});

/** The tunnels of one server, with the tunnel to `remote` opened (its listener released after the test). */
async function tunnelTo(remote: number, clock: { now: number }): Promise<ServerTunnels> {
  const localPort = await freePort();
  const tunnels = new ServerTunnels({
    preferredLocalPort: () => localPort,
    openChannel: (remotePort) =>
      new Promise((resolve, reject) => {
        const socket = connect(remotePort, '127.0.0.1');
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      }),
    onChange: () => undefined,
    startGraceMs: 20_000,
    now: () => clock.now,
  });
  clean.push(() => tunnels.release(remote));
  await tunnels.urlFor(remote);
  return tunnels;
}

describe('ServerTunnels: a new server is starting before it can be failing', () => {
  it('no failure while a new tunnel has never been answered within the grace; the failure after it', async () => {
    const clock = { now: 1_000_000 };
    const remote = await freePort();
    const tunnels = await tunnelTo(remote, clock);
    // Nothing listens on the remote port yet (ajet-swarm is still importing its stack).
    expect(await tunnels.probeAll()).toBe(false);
    expect(tunnels.firstFailure()).toBeNull();
    clock.now += 19_000;
    expect(await tunnels.probeAll()).toBe(false);
    expect(tunnels.firstFailure()).toBeNull();
    clock.now += 2_000;
    expect(await tunnels.probeAll()).toBe(false);
    expect(tunnels.firstFailure()).toMatchObject({ remotePort: remote });
  });

  it('once the server has answered, a failed probe counts at once, within the grace too', async () => {
    const clock = { now: 1_000_000 };
    const remote = await freePort();
    const tunnels = await tunnelTo(remote, clock);
    const server = await swarmServer(remote);
    expect(await tunnels.probeAll()).toBe(true);
    expect(tunnels.firstFailure()).toBeNull();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    clock.now += 1_000;
    expect(await tunnels.probeAll()).toBe(false);
    expect(tunnels.firstFailure()).toMatchObject({ remotePort: remote });
  });
});
