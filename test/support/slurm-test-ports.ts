/**
 * Ports for a spec that drives a SlurmEngine itself, whose jobs run on the test bed's node: this machine. Two numbers
 * that must never meet: the port label, where the engine's tunnel listens on this machine's 127.0.0.1 (or on one of the
 * 50 after it when taken), and the job's port search base, from which the job takes the first free port on the node's
 * 127.0.0.1, the same loopback. A tunnel listening on the very port its job chose (the job chose it before its server
 * bound it) forwards each connection through the login node back into itself, opening channels until sshd refuses the
 * 16,384th and drops the login connection (idle CI 2026-12-06: slurm-podman, 6 of 6 failed; its old ranges met for
 * 6% of process ids). Labels below 31,100, search bases from 32,000 up.
 */
export function slurmTestPorts(): { labelPort: number; portBase: number } {
  return { labelPort: 30_000 + (process.pid % 1000), portBase: 32_000 + (process.pid % 3000) };
}
