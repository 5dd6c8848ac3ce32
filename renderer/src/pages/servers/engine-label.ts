import type { EngineHealth, EngineKind, EngineProduct } from '../../../../electron/shared/schemas';
import { t } from '../../lib/i18n';

/**
 * How an engine card names its engine. What the user configured (the server's engine choice, or
 * the engine's kind) is only a guess: once the engine answered, its `/version` (health.product)
 * decides, so a server added as Docker that runs Podman is shown as Podman.
 */

/** The product an engine of this kind is expected to be; null for kinds that are no container engine of their own (Slurm, dry run). */
export function productOfKind(kind: EngineKind): EngineProduct | null {
  switch (kind) {
    case 'local-docker':
    case 'ssh-docker':
      return 'docker';
    case 'podman':
      return 'podman';
    default:
      return null;
  }
}

/** What the card calls the engine: what the engine itself answered (`EngineState.product`), else what was configured. */
export function shownProduct(configured: EngineProduct | null, answered: EngineProduct | null): EngineProduct | null {
  return answered ?? configured;
}

/** The product the engine turned out to be when it differs from the configured one; null otherwise. */
export function detectedOther(configured: EngineProduct | null, answered: EngineProduct | null): EngineProduct | null {
  return answered !== null && configured !== null && answered !== configured ? answered : null;
}

export function productName(product: EngineProduct): string {
  return t(`engine.product.${product}`);
}

/** The card's heading: "Podman engine on gpu-box", "Docker engine (this computer)", or the backend's label for other kinds. */
export function engineTitle(product: EngineProduct | null, where: { serverLabel: string } | { engineLabel: string }): string {
  if ('serverLabel' in where) return t('engine.titleRemote', { product: productName(product ?? 'docker'), label: where.serverLabel });
  return product ? t('engine.title', { product: productName(product) }) : where.engineLabel;
}

/** "Podman 4.3.1 · rootless · API 1.41"; the mode is left out while not known. */
export function versionLine(product: EngineProduct | null, health: EngineHealth): string {
  const params = {
    product: product ? productName(product) : '',
    version: health.version ?? '?',
    apiVersion: health.apiVersion ?? '?',
  };
  const line =
    health.rootless === true || health.rootless === false
      ? t('engine.versionMode', { ...params, mode: t(health.rootless ? 'engine.rootless' : 'engine.rootful') })
      : t('engine.version', params);
  return line.trim();
}
