// Slurm's error texts → AppErrors that name the fix. The first cases are real results of the test bed's
// Slurm 22.05 (fixtures/); the others are Slurm's wording the test bed cannot produce (accounting is off,
// its controller is up), quoted from Slurm 22.05's messages and the measured facts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostExecResult } from '../../../../../electron/services/engines/container-engine';
import { describeRequest, mapSlurmError, slurmRequestOf, slurmSays } from '../../../../../electron/services/engines/slurm/slurm-errors';

const real = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8')) as HostExecResult;
const failed = (stderr: string, code = 1): HostExecResult => ({ code, stdout: '', stderr });
const HOST = 'login1 (alice@hpc)';

describe('real results of the test bed', () => {
  it('more GPUs than any node has → SCHEDULER_REJECTED naming sinfo and what to ask for instead', () => {
    const error = mapSlurmError('sbatch', real('sbatch-gres-too-many.txt'), HOST);
    expect(error.code).toBe('SCHEDULER_REJECTED');
    expect(error.message).toMatch(/^Slurm refused the job: Requested node configuration is not available\. /);
    expect(error.message).toContain("sinfo -o '%P %G %c %m'");
    expect(error.message).toMatch(/fewer GPUs/);
  });

  it('an unknown partition → SCHEDULER_REJECTED naming sinfo -s', () => {
    const error = mapSlurmError('sbatch', real('sbatch-bad-partition.txt'), HOST);
    expect(error).toMatchObject({ code: 'SCHEDULER_REJECTED', message: expect.stringContaining('Invalid partition name specified') });
    expect(error.message).toContain('sinfo -s');
  });

  it('a command not on PATH (sh says "not found", rc 127) → ENGINE_UNREACHABLE naming the check to run', () => {
    const error = mapSlurmError('sbatch', real('command-not-found.txt'), HOST);
    expect(error.code).toBe('ENGINE_UNREACHABLE');
    expect(error.message).toMatch(/^sbatch is not found on login1 \(alice@hpc\)/);
    expect(error.message).toContain('sbatch --version');
  });

  it('a purged job id → CONTAINER_NOT_FOUND explaining MinJobAge', () => {
    expect(mapSlurmError('scontrol', real('scontrol-invalid-id.txt'), HOST)).toMatchObject({ code: 'CONTAINER_NOT_FOUND', message: expect.stringContaining('MinJobAge') });
  });
});

describe('the rejected request, named', () => {
  const script = ['#!/bin/bash -l', '#SBATCH --job-name=agentswarm-x', '#SBATCH --partition=gpu', '#SBATCH --gres=gpu:a100:3', '#SBATCH --cpus-per-task=4', '#SBATCH --mem=16G', 'echo hi'].join('\n');

  it('reads GPUs, CPUs, memory and partition from the #SBATCH lines', () => {
    expect(slurmRequestOf(script)).toEqual({ gpus: { option: '--gres=gpu:a100:3', count: 3 }, partition: 'gpu', cpusPerTask: 4, memory: '16G' });
    expect(slurmRequestOf('#SBATCH --gpus=2\n').gpus).toEqual({ option: '--gpus=2', count: 2 });
    expect(describeRequest(slurmRequestOf(script))).toBe('3 GPUs (--gres=gpu:a100:3), 4 CPUs and 16G of memory in partition gpu');
    expect(describeRequest(slurmRequestOf('#SBATCH --gres=gpu:1\n'))).toBe('1 GPU (--gres=gpu:1) in the default partition');
  });

  it('"Requested node configuration is not available" names the request and what the nodes have', () => {
    const error = mapSlurmError('sbatch', real('sbatch-gres-too-many.txt'), HOST, { request: slurmRequestOf(script), nodes: 'gpu a100:2 64 512000' });
    expect(error.code).toBe('SCHEDULER_REJECTED');
    expect(error.message).toContain('The job asks for 3 GPUs (--gres=gpu:a100:3), 4 CPUs and 16G of memory in partition gpu, and no node there has that much.');
    expect(error.message).toContain('The nodes have (partition, GPUs, CPUs, memory in MB): gpu a100:2 64 512000.');
    expect(error.message).toContain('ask for fewer GPUs (or no GPU type)');
  });
});

describe("Slurm's other wording", () => {
  it.each([
    ['sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified', /sacctmgr show assoc user=\$USER format=account,partition/],
    ['sbatch: error: Batch job submission failed: Invalid qos specification', /format=account,qos/],
    ['sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)', /sinfo -o '%P %l'/],
    ['sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user\'s size and/or time limits)', /limit of your account or QoS/],
    ['sbatch: error: Invalid generic resource (gres) specification\nsbatch: error: Batch job submission failed: Invalid generic resource (gres) specification', /GPU type/],
    ['sbatch: error: Batch job submission failed: Something new', /Change the option Slurm names/],
  ])('%s', (stderr, fix) => {
    const error = mapSlurmError('sbatch', failed(stderr), HOST);
    expect(error.code).toBe('SCHEDULER_REJECTED');
    expect(error.message).toMatch(fix);
  });

  it.each([
    ['squeue: error: Unable to contact slurm controller (connect failure)', /controller does not answer.*scontrol ping/],
    ['sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host\nsbatch: error: fetch_config: DNS SRV lookup failed', /SLURM_CONF/],
    ['squeue: error: Munge decode failed: Expired credential', /munge/],
  ])('%s → ENGINE_UNREACHABLE', (stderr, fix) => {
    const error = mapSlurmError('squeue', failed(stderr), HOST);
    expect(error.code).toBe('ENGINE_UNREACHABLE');
    expect(error.message).toMatch(fix);
  });

  it("someone else's job → ENGINE_PERMISSION_DENIED", () => {
    expect(mapSlurmError('scancel', failed('scancel: error: Kill job error on job id 5: Access/permission denied'), HOST).code).toBe('ENGINE_PERMISSION_DENIED');
  });

  it('anything else keeps Slurm\'s words, once, without its prefixes, capped', () => {
    const error = mapSlurmError('squeue', failed('squeue: error: odd thing\nsqueue: error: odd thing'), HOST);
    expect(error).toMatchObject({ code: 'INTERNAL', message: 'squeue failed on login1 (alice@hpc) (exit 1): odd thing.' });
    expect(slurmSays(failed('x'.repeat(1000))).length).toBe(401);
  });
});
