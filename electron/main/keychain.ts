import { app, safeStorage } from 'electron';
import { AppError } from '../shared/errors';
import type { KeychainInfo } from '../shared/schemas-vault';
import type { KeychainPort } from '../services/secrets/keychain-port';
import { PasswordStore, type ShellState, type ShellStore } from './shell-store';

/** Chromium's switch that picks the Linux secret store (basic, gnome-libsecret, kwallet, kwallet5, kwallet6). */
export const PASSWORD_STORE_SWITCH = 'password-store';

type CommandLine = Pick<Electron.CommandLine, 'hasSwitch' | 'getSwitchValue' | 'appendSwitch'>;

/**
 * Before `ready`: appends the remembered `--password-store=` (the user's own flag on the command
 * line wins). Returns the value this launch uses, null for auto-detection.
 */
export function applyPasswordStoreSwitch(state: ShellState, commandLine: CommandLine): string | null {
  if (commandLine.hasSwitch(PASSWORD_STORE_SWITCH)) return commandLine.getSwitchValue(PASSWORD_STORE_SWITCH) || null;
  if (state.passwordStore) commandLine.appendSwitch(PASSWORD_STORE_SWITCH, state.passwordStore);
  return state.passwordStore;
}

/** Desktops whose session Chromium maps to KDE's wallet. */
const KDE = /\bKDE\b/i;
/**
 * Everything else gets libsecret: the GNOME family (GNOME, Unity, Cinnamon, XFCE, Pantheon, Deepin,
 * UKUI, Budgie, MATE) uses it by default, and on tiling window managers (i3, sway, Hyprland, Niri…)
 * auto-detection falls back to `basic_text` although gnome-keyring (or KeePassXC's Secret Service)
 * is often installed: `--password-store=gnome-libsecret` is the documented fix (vscode#187338).
 */
export function suggestedPasswordStores(platform: NodeJS.Platform, desktop: string | null, env: Record<string, string | undefined>): string[] {
  if (platform !== 'linux') return [];
  if (desktop && KDE.test(desktop)) {
    const version = env['KDE_SESSION_VERSION'];
    if (version === '6') return ['kwallet6', 'kwallet5'];
    if (version === '5') return ['kwallet5', 'kwallet6'];
    return ['kwallet6', 'kwallet5', 'kwallet'];
  }
  return ['gnome-libsecret'];
}

/** What the OS store is called where there is no Linux backend to ask. */
function platformBackend(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'keychain';
  if (platform === 'win32') return 'dpapi';
  return 'unknown';
}

export interface KeychainOptions {
  shell: ShellStore;
  /** The `--password-store=` value this launch used (from `applyPasswordStoreSwitch`). */
  passwordStore: string | null;
  platform?: NodeJS.Platform;
  env?: Record<string, string | undefined>;
}

/**
 * The vault's KeychainPort over Electron's safeStorage, built after `ready` (before it, Linux reports
 * no backend and no encryption). Uses the async API the pinned Electron 45 has
 * (`isAsyncEncryptionAvailable`, `encryptStringAsync`, `decryptStringAsync`; the sync one is
 * deprecated and goes away in Electron 46). Bytes travel as base64 text, as those calls take strings.
 *
 * Linux without a keyring (`basic_text`, or no encryption): nothing is sealed unless the user chose
 * "obfuscation only" (`allowObfuscation`), which is remembered and re-applied at the next launch.
 */
export function createKeychain(options: KeychainOptions): KeychainPort {
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const { shell } = options;
  if (!app.isReady()) throw new Error('createKeychain must run after the app is ready: safeStorage answers "unknown" before');
  // The user's explicit choice only (VS Code does the same for `--password-store=basic`).
  if (platform === 'linux' && shell.get().allowObfuscation) safeStorage.setUsePlainTextEncryption(true);

  const info = async (): Promise<KeychainInfo> => {
    const available = await safeStorage.isAsyncEncryptionAvailable();
    const backend = platform === 'linux' ? safeStorage.getSelectedStorageBackend() : platformBackend(platform);
    const desktop = platform === 'linux' ? env['XDG_CURRENT_DESKTOP']?.trim() || null : null;
    return {
      available,
      backend,
      weak: !available || backend === 'basic_text',
      desktop,
      passwordStore: options.passwordStore,
      suggestedPasswordStores: suggestedPasswordStores(platform, desktop, env),
    };
  };

  /** Refuses to seal with a hard-coded key unless the user said so: `basic_text` is not protection. */
  const assertUsable = async (): Promise<void> => {
    const now = await info();
    if (!now.available) {
      throw new AppError(
        'KEYCHAIN_UNAVAILABLE',
        `The system keychain is not available (${now.backend}${now.desktop ? ` on ${now.desktop}` : ''}). ` +
          `Start the keyring (${now.suggestedPasswordStores.join(' or ') || 'the OS keychain'}), or use a passphrase or this session only.`,
      );
    }
    if (now.backend === 'basic_text' && !shell.get().allowObfuscation) {
      throw new AppError(
        'KEYCHAIN_UNAVAILABLE',
        'No keyring was found for this desktop, so the keychain would only obfuscate secrets. Fix the keyring ' +
          `(relaunch with --password-store=${now.suggestedPasswordStores[0] ?? 'gnome-libsecret'}), use a passphrase, or choose "obfuscation only" explicitly.`,
      );
    }
  };

  return {
    info,
    async encrypt(plain) {
      await assertUsable();
      return safeStorage.encryptStringAsync(plain.toString('base64'));
    },
    async decrypt(sealed) {
      await assertUsable();
      try {
        const { result } = await safeStorage.decryptStringAsync(sealed);
        return Buffer.from(result, 'base64');
      } catch (error) {
        // A keyring reset or another desktop: the vault shows it as locked and asks for re-entry.
        throw new AppError('KEYCHAIN_UNAVAILABLE', 'The system keychain could not unlock the vault (was the keyring reset, or is this another desktop session?).', {
          cause: error,
        });
      }
    },
    allowObfuscation() {
      if (platform !== 'linux') return;
      shell.set('allowObfuscation', true);
      safeStorage.setUsePlainTextEncryption(true);
    },
    async setPasswordStore(value) {
      const parsed = PasswordStore.safeParse(value);
      if (!parsed.success) throw new AppError('VALIDATION_FAILED', `"${String(value)}" is not a password store; use gnome-libsecret, kwallet, kwallet5, kwallet6 or basic.`);
      // Takes effect at the next launch: Chromium reads the switch once, before `ready`.
      shell.set('passwordStore', parsed.data);
    },
  };
}
