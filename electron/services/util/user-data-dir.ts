import { homedir } from 'node:os';
import { join } from 'node:path';

export const PRODUCT_NAME = 'AgentSwarm Desktop';

/**
 * The folder Electron's `app.getPath('userData')` would give, computed without Electron, so the
 * browser host and the desktop app share one settings file.
 */
export function defaultUserDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.AGENTSWARM_DATA_DIR) return env.AGENTSWARM_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), PRODUCT_NAME);
}
