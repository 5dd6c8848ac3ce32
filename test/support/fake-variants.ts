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

  async image(name: string, env: string): Promise<string> {
    const base = await this.docker.createContainer({ Image: this.baseImage, Cmd: ['ajet-swarm', 'start'], Labels: TEST_CONTAINER_LABELS });
    try {
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
