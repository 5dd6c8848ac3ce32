const LOOPBACK_NAMES = new Set(['localhost', '::1', '[::1]']);

/** True for names and addresses that stay on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackAddress(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}
