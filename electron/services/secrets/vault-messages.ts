import { AppError } from '../../shared/errors';
import type { KeychainInfo, VaultBackend } from '../../shared/schemas-vault';

/**
 * The vault's user-facing texts (English; the renderer titles them per error code in en/zh-CN).
 * None of them ever includes a value or ciphertext — only paths, ids and what to do.
 */

/** The backends this host can offer now. `obfuscated` only where the keychain cannot protect. */
export function availableBackends(keychainReachable: boolean, info: KeychainInfo | null): VaultBackend[] {
  const always: VaultBackend[] = ['passphrase', 'session'];
  if (!keychainReachable || !info) return always;
  if (info.available && !info.weak) return ['keychain', ...always];
  return [...always, 'obfuscated'];
}

export function keychainUnavailable(info: KeychainInfo | null, keychainReachable: boolean): AppError {
  if (!keychainReachable) {
    return new AppError(
      'KEYCHAIN_UNAVAILABLE',
      'There is no OS keychain here (the browser host cannot reach it). Use a passphrase vault, or keep secrets for this session only.',
    );
  }
  const where = info?.desktop ? ` on ${info.desktop}` : '';
  const fix = info?.suggestedPasswordStores[0] ? ` Or relaunch with --password-store=${info.suggestedPasswordStores[0]} (the app can remember it).` : '';
  const what = info?.available ? `only obfuscates secrets (${info.backend})` : 'is not available';
  return new AppError(
    'KEYCHAIN_UNAVAILABLE',
    `The OS keychain${where} ${what}, so the app will not rely on it. Choose a passphrase vault, session only, or the explicit "obfuscation only" (not protected).${fix}`,
  );
}

export function obfuscationNotNeeded(): AppError {
  return new AppError('VALIDATION_FAILED', 'The OS keychain protects secrets here, so "obfuscation only" is not offered: choose the keychain.');
}

export function notSetUp(): AppError {
  return new AppError('VAULT_NOT_SET_UP', 'The credentials vault is not set up yet: choose where secrets are kept in Settings, then try again.');
}

export function locked(problem: string | null): AppError {
  return new AppError('VAULT_LOCKED', problem ?? 'The credentials vault is locked: unlock it in Settings (type its passphrase), then try again.');
}

export function wrongPassphrase(): AppError {
  return new AppError('VAULT_WRONG_PASSPHRASE', 'That passphrase does not open the vault. Nothing was changed; type it again (it is case-sensitive).');
}

export function secretNotFound(id: string): AppError {
  return new AppError('SECRET_NOT_FOUND', `There is no secret "${id}" in the vault: it was deleted, or set on another computer. Set it again in Settings.`);
}

export function secretBroken(id: string): AppError {
  return new AppError(
    'SECRET_NOT_FOUND',
    `The secret "${id}" failed its integrity check (the vault file was changed outside the app), so it is not used. Set it again in Settings.`,
  );
}

export function corruptProblem(detail: string, aside: string): string {
  return `The vault file could not be read (${detail}) and was moved to ${aside}. Your other settings are intact; set the vault up again and enter the secrets again.`;
}

export function keychainProblem(file: string, backend: VaultBackend, reachable: boolean): string {
  if (!reachable) {
    return `This vault (${file}) is kept with the OS keychain, which this host cannot reach. Open it in the desktop app, or set up a new vault here (the current file is kept aside, not deleted).`;
  }
  const which = backend === 'obfuscated' ? 'obfuscated with the OS keychain' : 'wrapped by the OS keychain';
  return `The vault's key is ${which}, and the keychain could not unwrap it (it may have been reset, or this is another desktop session). Unlock to try again, or set the vault up again: the current file is kept aside, not deleted, and you enter the secrets again.`;
}

export function keyCheckProblem(file: string): string {
  return `The vault file ${file} failed its integrity check (it was changed outside the app). Set the vault up again: the current file is kept aside, not deleted.`;
}

export function newerProblem(file: string, version: number): string {
  return `The vault file ${file} was written by a newer version of the app (format ${version}), and this version leaves it untouched. Update the app, or set up a new vault (the file is kept aside).`;
}

export function unreadableProblem(file: string, detail: string): string {
  return `The vault file ${file} cannot be read (${detail}). Fix its permissions (or move it away), then unlock again.`;
}

export function brokenEntriesProblem(ids: string[]): string {
  return `${ids.length === 1 ? 'A secret' : `${ids.length} secrets`} failed the integrity check (the vault file was changed outside the app) and ${ids.length === 1 ? 'is' : 'are'} not used: ${ids.join(', ')}. Set ${ids.length === 1 ? 'it' : 'them'} again.`;
}
