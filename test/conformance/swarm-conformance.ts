// The AgentJet swarm protocol conformance suite, written from /work/shared/reference/agentjet-swarm.md (§1.1–§1.5
// and the appendix "observed by running upstream's HTTP layer"). It talks plain HTTP to a base URL, so any
// implementation can be checked: the fake swarm server (test/fixtures/fake-swarm), a dry-run server, or a container
// holding upstream's real server code. The suite plays upstream's trainer through the trainer routes
// (/update_engine_status, /register_episode, /update_current_batch_rollout_pool_information_and_fetch_instruction),
// so the server under test must not move its status on its own after /start_engine.
import { afterEach, beforeEach, describe } from 'vitest';
import { chatPart } from './parts/chat';
import { clientsPart } from './parts/clients';
import { enginePart } from './parts/engine';
import { episodesPart } from './parts/episodes';
import { frameworkPart } from './parts/framework';
import { janitorPart } from './parts/janitor';
import { parsingPart } from './parts/parsing';
import { poolPart } from './parts/pool';
import { startConfigPart } from './parts/start-config';
import { trainCodePart } from './parts/train-code';
import { trainingStepPart } from './parts/training-step';
import { Swarm } from './support/swarm';

export interface SwarmStartOptions {
  /** Period of the janitor that reverts idle claimed episodes and expires idle clients (upstream: 10 000). */
  janitorIntervalMs: number;
  /** CLIENT_ACTIVE_TIMEOUT in seconds (reference: 600). */
  clientActiveTimeoutS: number;
}

export interface SwarmUnderTest {
  /** e.g. http://127.0.0.1:10086 — loopback only. */
  baseUrl: string;
  close(): Promise<void>;
}

export interface SwarmCapabilities {
  /** The server honours SwarmStartOptions (short janitor period and client timeout); else the janitor tests skip. */
  configurableJanitor: boolean;
  /** A claimed episode gets chat completions without a rollout worker behind it (a fake or a dry run). */
  chatWithoutRunner: boolean;
  /** /end_episode of a train episode returns without a ZMQ rollout worker to acknowledge it. */
  endTrainWithoutRunner: boolean;
}

export interface TrainingStartOptions {
  /** BOOTING time before the first ROLLING. */
  bootDelayMs: number;
  /** The simulated training step (WEIGHT_SYNCING after a batch); undefined: the server's own default. */
  trainingStepMs?: number;
}

export interface SwarmConformanceTarget {
  name: string;
  /** A fresh server in ENGINE.OFFLINE, nothing synced, whose status only the suite moves after /start_engine. */
  start(options: SwarmStartOptions): Promise<SwarmUnderTest>;
  /**
   * A fresh server in ENGINE.OFFLINE that plays the trainer itself after /start_engine (registers episodes, ends a
   * step by the synced sample collection method). Absent (a real server needs GPUs): the training-step rules skip.
   */
  startTraining?(options: TrainingStartOptions): Promise<SwarmUnderTest>;
  capabilities: SwarmCapabilities;
}

export const UPSTREAM_DEFAULTS: SwarmStartOptions = { janitorIntervalMs: 10_000, clientActiveTimeoutS: 600 };

export interface PartContext {
  target: SwarmConformanceTarget;
  /** The server of the current test, started with UPSTREAM_DEFAULTS. */
  swarm(): Swarm;
  /** Replaces the current test's server with one started with other options. */
  restart(options: SwarmStartOptions): Promise<Swarm>;
}

export function defineSwarmConformance(target: SwarmConformanceTarget): void {
  describe(`swarm protocol conformance: ${target.name}`, () => {
    let server: SwarmUnderTest | undefined;
    let swarm: Swarm | undefined;
    const startWith = async (options: SwarmStartOptions): Promise<Swarm> => {
      await server?.close();
      server = await target.start(options);
      swarm = new Swarm(server.baseUrl);
      return swarm;
    };
    beforeEach(async () => {
      await startWith(UPSTREAM_DEFAULTS);
    });
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    const ctx: PartContext = {
      target,
      swarm: () => {
        if (!swarm) throw new Error('no server under test');
        return swarm;
      },
      restart: startWith,
    };
    frameworkPart(ctx);
    parsingPart(ctx);
    enginePart(ctx);
    startConfigPart(ctx);
    episodesPart(ctx);
    poolPart(ctx);
    clientsPart(ctx);
    chatPart(ctx);
    trainCodePart(ctx);
    janitorPart(ctx);
    trainingStepPart(ctx);
  });
}
