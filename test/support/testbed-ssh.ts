import { SshConnection, type SshConnectionOptions } from '../../electron/services/ssh/ssh-connection';
import { loadTestbed, type Testbed } from '../testbed/testbed';

/**
 * Logs in to the test bed's sshd as its user with the plain key, trusting exactly the host key
 * testbed.json records: the login the tunnel and Docker-over-SSH tests and benchmarks share.
 */
export function connectToTestbed(extra: Partial<SshConnectionOptions> = {}, tb: Testbed = loadTestbed()): Promise<SshConnection> {
  return SshConnection.connect({
    host: tb.ssh.host,
    port: tb.ssh.port,
    username: tb.ssh.user,
    auth: [{ kind: 'key', path: tb.ssh.plainKeyPath }],
    askSecret: () => Promise.resolve(null),
    verifyHostKey: (info) => Promise.resolve(info.fingerprint === tb.ssh.hostKeyFingerprint),
    ...extra,
  });
}
