import type { ConnectConfig } from 'ssh2';

type Algorithms = NonNullable<ConnectConfig['algorithms']>;

/** The host key algorithms that present a key of each type, best first (RSA keys sign with SHA-2 first). */
const ALGORITHMS_OF_KEY_TYPE: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

const exactly = (name: string): RegExp => new RegExp(`^${name.replace(/[.+^$]/g, '\\$&')}$`);

/**
 * The `serverHostKey` preference for a host whose trusted key types are `knownKeyTypes`, like OpenSSH's
 * order_hostkeyalgs: the algorithms of the known types first (in known_hosts order), then ssh2's
 * defaults. The server picks the first algorithm of ours it has, so a server that still holds a key
 * we trust presents that one, and a key of another type means it has none of them (HostKeyTrust
 * refuses it like a changed key). Without this, ssh2's default order (ed25519 first) would make a
 * host known by its ECDSA or RSA key look like a stranger. Expressed as ssh2 remove/prepend
 * operations with RegExps so an algorithm the runtime lacks (ed25519 on an old crypto) is skipped,
 * not an "Unsupported algorithm" throw. Undefined when nothing is known: ssh2's order stays.
 */
export function hostKeyAlgorithms(knownKeyTypes: readonly string[]): Algorithms['serverHostKey'] {
  const preferred = [...new Set(knownKeyTypes.flatMap((type) => ALGORITHMS_OF_KEY_TYPE[type] ?? []))];
  if (preferred.length === 0) return undefined;
  const patterns = preferred.map(exactly);
  // ssh2 applies the operations in key order: take them out of the default list, then put them in front.
  return { remove: patterns, prepend: patterns } as unknown as Algorithms['serverHostKey'];
}

/** `algorithms` with the host key order for `knownKeyTypes`; a `serverHostKey` the caller set wins. */
export function withHostKeyOrder(algorithms: Algorithms | undefined, knownKeyTypes: readonly string[]): Algorithms | undefined {
  if (algorithms?.serverHostKey) return algorithms;
  const serverHostKey = hostKeyAlgorithms(knownKeyTypes);
  return serverHostKey ? { ...algorithms, serverHostKey } : algorithms;
}
