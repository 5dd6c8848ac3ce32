// What every YAML that AgentJetJob syncs carries (it is the full Hydra config; reference §5.1) and upstream's
// /start_engine reads with [...]: `ajet.interchange_server`, and Hydra's top-level `defaults` and `hydra`. Without
// them upstream answers {"success":false,"error":"'defaults'"} (or 'interchange_server', 'hydra') and stays BOOTING,
// and so do the fake and the dry run. Test YAMLs that only set a few ajet keys end with this.

/** Lines to append to a YAML whose last block is `ajet:` at two-space indent. */
export const UPSTREAM_JOB_TAIL =
  '  interchange_server:\n    interchange_method: ipc\n    interchange_server_port: 10086\n' +
  'defaults:\n- verl_default\n- ajet_default\n- _self_\n' +
  'hydra:\n  searchpath:\n  - file://ajet/default_config\n  - file://ajet/default_config/verl\n';

/** `ajet:` + the given ajet lines (two-space indented, ending in a newline) + UPSTREAM_JOB_TAIL. */
export function upstreamJob(ajetLines: string): string {
  return `ajet:\n${ajetLines}${UPSTREAM_JOB_TAIL}`;
}
