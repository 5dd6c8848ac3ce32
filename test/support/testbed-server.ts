import { engineIdOfServer, ServerProfileInput } from '../../electron/shared/schemas-servers';
import { loadTestbed, type Testbed } from '../testbed/testbed';
import type { TestApp } from './test-app';

/**
 * Adds the test bed's sshd as an SSH server of `app` (plain key), trusts exactly the host key
 * testbed.json records, and returns its engine id once the server is up: for specs that need a
 * remote engine through the app's own handlers.
 */
export async function connectTestbedServer(
  app: TestApp,
  label = 'testbed',
  tb: Testbed = loadTestbed(),
  /** Another account of the test bed's sshd (the rootless Podman user) and how it reaches its engine. */
  override: Partial<Pick<ServerProfileInput, 'username' | 'docker'>> = {},
): Promise<string> {
  const view = await app.handlers['servers:add'](
    ServerProfileInput.parse({
      label,
      host: tb.ssh.host,
      port: tb.ssh.port,
      username: tb.ssh.user,
      authMethods: ['key'],
      identityFiles: [tb.ssh.plainKeyPath],
      ...override,
    }),
  );
  const serverId = view.profile.id;
  const first = await app.handlers['servers:connect']({ serverId });
  if (first.state !== 'up') {
    if (first.hostKey?.fingerprint !== tb.ssh.hostKeyFingerprint) throw new Error(`the test bed server did not come up: ${JSON.stringify(first.reason)}`);
    const up = await app.handlers['servers:trust-host-key']({ serverId, fingerprint: tb.ssh.hostKeyFingerprint });
    if (up.state !== 'up') throw new Error(`the test bed server did not come up after trusting its key: ${JSON.stringify(up.reason)}`);
  }
  return engineIdOfServer(serverId);
}
