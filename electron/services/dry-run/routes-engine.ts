/**
 * The engine control routes of upstream's swarm_server.py (c68c154): status, config and code sync, start, stop and
 * the trainer's status update, answer for answer (reference §1.1, §1.5, appendix points 1, 5–7, 14, 18).
 */
import { join } from 'node:path';
import type { DryRunTrainer } from './auto-trainer';
import type { SwarmState } from './engine-state';
import { STATUS } from './engine-state';
import { HttpError, type Log, type SwarmHttpApp } from './http-framework';
import * as M from './swarm-models';
import { trainCodeZipProblem } from './train-code-zip';
import { upstreamStartRefusal } from './start-checks';
import { readTrainConfig } from './train-config';

export interface EngineRouteDeps {
  app: SwarmHttpApp;
  state: SwarmState;
  trainer: DryRunTrainer;
  /** Where an uploaded ajet/ tree is said to be unpacked (the dry run does not run it). */
  codeBaseDir: string;
  log: Log;
}

const ok = (failure_reason = '') => ({ success: failure_reason === '', failure_reason });

export function registerEngineRoutes({ app, state, trainer, codeBaseDir, log }: EngineRouteDeps): void {
  app.route('GET', '/health', () => ({ status: 'ok' }));

  app.route('GET', '/get_engine_status', () => ({
    engine_status: state.status,
    engine_status_detail: state.engineStatusDetail,
    global_step: state.globalStep,
  }));

  app.route('GET', '/get_server_experiment_dir', () => ({ server_experiment_dir: state.serverExperimentDir }));

  app.route<{ yaml_as_string: string }>(
    'POST',
    '/sync_train_config',
    ({ body }) => {
      if (state.status !== STATUS.OFFLINE) {
        throw new HttpError(400, 'Engine is already started. Call `stop_engine` first before syncing new training configuration.');
      }
      state.trainConfigYaml = body.yaml_as_string;
      // ajet.model.path is read at sync time, not at start (appendix point 16); None when absent.
      const config = readTrainConfig(body.yaml_as_string);
      state.trainingModelPath = config.modelPath;
      log('info', `[sync_train_config] stored the training configuration (model: ${config.modelPath ?? 'None'}${config.parsed ? '' : '; not a YAML mapping, defaults apply'})`);
      state.emit({ type: 'changed' });
      return { success: true };
    },
    M.SyncTrainConfigRequest,
  );

  app.route('POST', '/sync_train_code', ({ raw }) => {
    if (state.status !== STATUS.OFFLINE) {
      throw new HttpError(400, 'Engine is already started. Call `stop_engine` first before syncing new training code.');
    }
    const problem = trainCodeZipProblem(raw);
    if (problem) {
      log('error', `[sync_train_code] Error: ${problem}`);
      throw new HttpError(400, problem);
    }
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').replace(/\..*/, '');
    const path = join(codeBaseDir, `${stamp}_${String(Date.now() % 1000).padStart(3, '0')}000`, 'ajet');
    // The dry run's trainer is built in: the uploaded trainer code is checked like upstream but not run.
    log('info', `[sync_train_code] training code accepted (${raw.length} bytes; the dry run does not run trainer code)`);
    return { success: true, message: 'Training code synced successfully.', temp_ajet_code_path: path };
  });

  app.route('POST', '/start_engine', () => {
    if (state.status !== STATUS.OFFLINE) {
      throw new HttpError(400, `Cannot start engine when engine is not offline. Current status: ${state.status}`);
    }
    if (state.trainConfigYaml === undefined) {
      log('error', '[start_engine] No training config found. Please call sync_train_config first.');
      return { success: false, error: 'No training config found' };
    }
    // Upstream reads the YAML only after writing BOOTING, so a refused YAML leaves the engine stuck there.
    const refusal = upstreamStartRefusal(state.trainConfigYaml);
    if (refusal) return trainer.failStart(refusal);
    return trainer.start(readTrainConfig(state.trainConfigYaml));
  });

  app.route('POST', '/stop_engine', () => {
    trainer.kill();
    state.stop();
    return ok();
  });

  app.route<{ engine_status: string; engine_status_detail: string | null; global_step: number | null }>(
    'POST',
    '/update_engine_status',
    ({ body }) => {
      const done = state.updateStatus(body.engine_status, { globalStep: body.global_step, detail: body.engine_status_detail, reason: 'update_engine_status' });
      return done ? ok() : ok('Invalid engine status');
    },
    M.UpdateEngineStatusRequest,
  );
}
