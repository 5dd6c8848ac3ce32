import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { TEST_CONTAINER_LABELS } from './test-app';

const VARIANT_REPO = 'agentswarm-test/fake-swarm-variant';

/**
 * Images of the fake swarm server (the TEST DOUBLE of upstream's) with one more ENV each, committed
 * from a container of the test bed's image: no registry, no build. `dispose` removes them.
 */
export class FakeSwarmVariants {
  private readonly made = new Set<string>();

  constructor(
    private readonly docker: Docker,
    private readonly baseImage: string,
  ) {}

  /**
   * `thisCheckout`: the image also gets this checkout's fake (test/fixtures/fake-swarm/*.mjs), for a knob newer than
   * the test bed's image (the bed builds its image from the checkout that brought it up).
   */
  async image(name: string, env: string, options: { thisCheckout?: boolean } = {}): Promise<string> {
    const base = await this.docker.createContainer({ Image: this.baseImage, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS });
    try {
      if (options.thisCheckout) {
        const dir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/fake-swarm');
        const files = readdirSync(dir).filter((f) => f.endsWith('.mjs'));
        await base.putArchive(execFileSync('tar', ['--owner=0', '--group=0', '-C', dir, '-c', ...files]), { path: '/opt/fake-swarm' });
      }
      await base.commit({ repo: VARIANT_REPO, tag: name, changes: [`ENV ${env}`] });
    } finally {
      await base.remove({ force: true });
    }
    const image = `${VARIANT_REPO}:${name}`;
    this.made.add(image);
    return image;
  }

  async dispose(): Promise<void> {
    for (const image of this.made) await this.docker.getImage(image).remove({ force: true }).catch(() => undefined);
  }
}
