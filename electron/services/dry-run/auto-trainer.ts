/**
 * The dry run's training process: what /start_engine spawns on the GPU server (Ray, verl, vLLM), with timers and
 * no weights. In mode 'auto' it plays upstream's trainer (trainer_verl.py / native_parallel_worker.py): BOOTING
 * for bootDelayMs, then each step ROLLING with batch_size × num_repeat registered episodes (a finished episode's
 * slot gets a new one), the step's finished episodes counted by the job's sample collection method, and when the
 * batch is complete ROLLING_POST (in-flight episodes may finish) → WEIGHT_SYNCING for the simulated training step
 * (trainingStepMs, long enough for a client's status poll to see it) → ROLLING at global_step + 1.
 * In mode 'external' nothing moves after /start_engine: a test plays the trainer through the trainer routes.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { STATUS, scalarReward, type StateEvent, type SwarmState } from './engine-state';
import { pyJsonDumpsFlat } from './py-format';
import type { TraceSink } from './relay-contract';
import { StepCollection } from './sample-collection';
import type { StartRefusal } from './start-checks';
import { experimentName, type TrainConfig } from './train-config';
import type { Log } from './http-framework';

export type TrainerMode = 'auto' | 'external';

export interface TrainerOptions {
  mode: TrainerMode;
  bootDelayMs: number;
  /** WEIGHT_SYNCING time after each batch: the simulated policy update + weight push. */
  trainingStepMs: number;
  /** The base URL registered episodes point their agents at: this server + /v1. */
  baseUrl: () => string;
  /** Where the experiment dir is said to be (nothing is written: no checkpoints, no logs). */
  experimentBaseDir: string;
  trace?: TraceSink;
  log: Log;
  /** A step's batch is complete (WEIGHT_SYNCING begins): its exact numbers, for the training dashboard. */
  onStepCollected?: (collected: CollectedStep) => void;
}

/** One completed batch as the trainer counted it. */
export interface CollectedStep {
  /** Which /start_engine the step belongs to. */
  bootId: string;
  step: number;
  /** When the step's ROLLING began (ms). */
  startedAt: number;
  rewards: number[];
  episodes: number;
}

/**
 * Episodes open at once: batch_size × num_repeat, capped by upstream's max_env_worker rounded up to whole GRPO
 * groups (native_parallel_worker.py::rollout_swarm; reference §1.5 "The max-episode cap").
 */
export function parallelSlots(config: Pick<TrainConfig, 'batchSize' | 'numRepeat' | 'maxEnvWorker'>): number {
  const { batchSize, numRepeat, maxEnvWorker } = config;
  return Math.min(batchSize * numRepeat, Math.ceil(maxEnvWorker / numRepeat) * numRepeat);
}

export type StartAnswer = { success: true; pid: number } | { success: false; error: string };

interface RunningStep {
  globalStep: number;
  collection: StepCollection;
  startedAt: number;
}

export class DryRunTrainer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private config: TrainConfig | undefined;
  private step: RunningStep | undefined;
  private stallReason: string | null = null;
  private refusal: StartRefusal | null = null;
  private bootId = '';
  /** Guards against re-entry: registering episodes and status writes emit state events that land here again. */
  private acting = false;

  constructor(
    private readonly state: SwarmState,
    private readonly options: TrainerOptions,
  ) {
    state.on((event) => this.onStateEvent(event));
  }

  get stall(): string | null {
    return this.stallReason;
  }

  get currentConfig(): TrainConfig | undefined {
    return this.config;
  }

  /** Why the last /start_engine failed on the synced YAML, until /stop_engine; null otherwise. */
  get startRefusal(): StartRefusal | null {
    return this.refusal;
  }

  /**
   * /start_engine on a YAML upstream's config code refuses: BOOTING is written first and never left (no trainer
   * runs), and the answer is HTTP 200 {success:false, error} (reference appendix points 6, 18).
   */
  failStart(refusal: StartRefusal): StartAnswer {
    const state = this.state;
    this.config = undefined;
    this.refusal = refusal;
    state.writeStatus(STATUS.BOOTING, `start_engine failed: ${refusal.error}; upstream stays BOOTING until stop_engine`);
    state.bootingStartTime = Date.now() / 1000;
    this.options.log('error', `[start_engine] Error starting engine: ${refusal.error}`);
    state.emit({ type: 'changed' });
    return { success: false, error: refusal.error };
  }

  /** /start_engine after its OFFLINE and config checks. */
  start(config: TrainConfig): StartAnswer {
    const state = this.state;
    this.config = config;
    this.refusal = null;
    this.bootId = randomBytes(6).toString('hex');
    state.writeStatus(STATUS.BOOTING, `start_engine: booting for ${this.options.bootDelayMs} ms (dry run: no model is loaded)`);
    state.bootingStartTime = Date.now() / 1000;
    state.serverExperimentDir = join(this.options.experimentBaseDir, experimentName(config));
    state.cleanUpEpisodes('start_engine');
    if (config.unknownMethod !== null) {
      this.options.log('warn', `[start_engine] unknown swarm_mode_sample_collection_method "${config.unknownMethod}": using ${config.sampleCollectionMethod}`);
    }
    if (this.options.mode === 'auto') {
      // Only a boot that is still booting ends in ROLLING (a trainer route may have reported it dead meanwhile).
      this.later(this.options.bootDelayMs, () => {
        if (state.status === STATUS.BOOTING) this.beginStep(1);
      });
    }
    // No subprocess is spawned: the pid is this process's, the one to look at when something is wrong.
    return { success: true, pid: process.pid };
  }

  /** The process tree is gone (/stop_engine, server shutdown). */
  kill(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.step = undefined;
    this.refusal = null;
    this.setStall(null);
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, ms);
    this.timers.add(timer);
  }

  private beginStep(globalStep: number): void {
    const config = this.config;
    if (!config) return;
    const { batchSize, numRepeat, sampleCollectionMethod } = config;
    this.step = { globalStep, collection: new StepCollection({ batchSize, numRepeat, method: sampleCollectionMethod }), startedAt: Date.now() };
    this.setStall(null);
    this.act(() => {
      const slots = parallelSlots(config);
      const capped = slots < batchSize * numRepeat ? `, capped by max_env_worker ${config.maxEnvWorker}` : '';
      this.state.updateStatus(STATUS.ROLLING, {
        globalStep,
        reason: `step ${globalStep}: ${slots} episodes registered (batch_size ${batchSize} × num_repeat ${numRepeat}${capped}), rolling until ${sampleCollectionMethod}`,
      });
      this.pushPool();
      for (let i = 0; i < slots; i++) this.registerEpisode();
      this.state.pushVerbose('dry-run-trainer', `step ${globalStep}: rolling until ${sampleCollectionMethod}`);
    });
  }

  /** One parallel slot: an episode whose routing key has upstream's format, with this server as its base URL. */
  private registerEpisode(): void {
    const uuid = randomBytes(16).toString('hex');
    // No ZMQ runner listens here; the address keeps upstream's shape so a script that decodes its key sees the same.
    const address = `ipc:///tmp/agentjet/${uuid}-default_target_tag.sock`;
    const key = pyJsonDumpsFlat({ agent_name: 'default_agent_name', target_tag: 'default_target_tag', episode_uuid: uuid, episode_address: address });
    this.state.registerEpisode({
      episode_uuid: uuid,
      openai_base_url: this.options.baseUrl(),
      openai_api_key: `sk-ajet-${Buffer.from(key).toString('base64')}`,
      zmq_listen_result_addr: address,
    });
  }

  private pushPool(): void {
    if (this.step) this.state.storePool(this.step.collection.poolInformation());
  }

  private act(action: () => void): void {
    const outer = this.acting;
    this.acting = true;
    try {
      action();
    } finally {
      this.acting = outer;
    }
  }

  private onStateEvent(event: StateEvent): void {
    if (this.options.mode !== 'auto' || this.acting || !this.step || !this.state.isRolling()) return;
    this.act(() => {
      if (event.type === 'episode-finished') this.countFinished(event);
      if (this.state.status === STATUS.ROLLING) this.checkRolling(event.type === 'episode-finished');
      else if (this.state.status === STATUS.ROLLING_POST) this.checkRollingPost();
    });
  }

  private countFinished(event: Extract<StateEvent, { type: 'episode-finished' }>): void {
    const step = this.step;
    if (!step) return;
    const reward = scalarReward(event.output.reward);
    if (reward === null) {
      // Upstream's runner refuses a null reward: the episode never reaches the batch.
      this.options.log('warn', `episode ${event.episode.episode_uuid} ended with reward null: upstream's trainer rejects it, so it does not count`);
      return;
    }
    step.collection.add(event.taskId, event.episode.episode_uuid, reward);
    this.pushPool();
  }

  private checkRolling(episodeFinished: boolean): void {
    const step = this.step;
    if (!step) return;
    const clients = this.state.activeClients;
    if (step.collection.isComplete(clients)) {
      this.setStall(null);
      this.state.updateStatus(STATUS.ROLLING_POST, { reason: step.collection.completionReason(clients) });
      this.checkRollingPost();
      return;
    }
    // Keep every parallel slot busy, as upstream's rollout threads do.
    if (episodeFinished) this.registerEpisode();
    this.setStall(step.collection.stallReason(clients));
  }

  /** ROLLING_POST ends once no episode is claimed any more (ended, aborted, or reverted by the janitor). */
  private checkRollingPost(): void {
    const step = this.step;
    if (!step) return;
    const inFlight = [...this.state.episodes.values()].some((record) => record.episode_status === 'claimed');
    if (inFlight) return;
    // Upstream's GPU step (policy update, weights pushed to vLLM) takes minutes; 0 ms here would be unobservable to
    // SwarmClient.agree_sync_weight(), which waits to see ROLLING_POST or WEIGHT_SYNCING by polling every 5 s.
    const seconds = Math.round(this.options.trainingStepMs / 100) / 10;
    this.tellCollected(step);
    this.state.updateStatus(STATUS.WEIGHT_SYNCING, {
      reason: `step ${step.globalStep} collected; simulated training step: WEIGHT_SYNCING for ${seconds} s (dry run: nothing is trained, no weights change)`,
    });
    // A step of 0 ms moves on in this same turn: no status poll can see it, whatever the event loop's load (a timer
    // of 0 ms let a poll that was already waiting see WEIGHT_SYNCING on a loaded machine, now and then).
    if (this.options.trainingStepMs <= 0) return this.beginStep(step.globalStep + 1);
    this.later(this.options.trainingStepMs, () => {
      if (this.state.status === STATUS.WEIGHT_SYNCING && this.step === step) this.beginStep(step.globalStep + 1);
    });
  }

  /** Before the status moves on, so a monitor polling the status never sees a step end before its record. */
  private tellCollected(step: RunningStep): void {
    const rewards = step.collection.rewards();
    try {
      this.options.onStepCollected?.({ bootId: this.bootId, step: step.globalStep, startedAt: step.startedAt, rewards, episodes: step.collection.counts().episodes });
    } catch (error) {
      this.options.log('warn', `[dry-run trainer] could not report step ${step.globalStep}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private setStall(reason: string | null): void {
    if (reason === this.stallReason) return;
    this.stallReason = reason;
    if (reason) this.options.log('warn', `[dry-run trainer] batch stalled: ${reason}`);
    this.options.trace?.stall(reason);
    this.state.emit({ type: 'changed' });
  }
}
