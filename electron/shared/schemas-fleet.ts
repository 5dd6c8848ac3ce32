import { z } from 'zod';
import { ContainerId, EngineId } from './schemas';
import { PageId } from './schemas-watch';

/**
 * The fleet home's own data (issue 33): what `nvidia-smi` says of the GPUs of each GPU host the app
 * holds a server on, and the alerts the fleet services raise. The servers themselves come from the
 * server-state store (`fleet:states`); these add what it does not know.
 */

/** One GPU as `nvidia-smi --query-gpu=index,uuid,utilization.gpu,memory.used,memory.total` reports it; null where it said `[N/A]`. */
export const GpuReading = z.object({
  index: z.number().int().nonnegative(),
  uuid: z.string(),
  utilizationPct: z.number().nonnegative().nullable(),
  memoryUsedMiB: z.number().nonnegative().nullable(),
  memoryTotalMiB: z.number().nonnegative().nullable(),
});

/** `df -P` of one checkpoint or experiment folder, read with the GPUs (same visit to the host); null: df said nothing readable (no such folder yet). */
export const DiskReading = z.object({
  /** The folder as the profile names it (`~/swarmckpt`). */
  path: z.string(),
  usedPct: z.number().min(0).max(100).nullable(),
});

/**
 * The newest sample of one GPU host: an engine's host (local Docker, an SSH server), or one Slurm job's allocation
 * (`containerId` is the job id; sampled inside the allocation). `error` says why the sample has no GPUs.
 */
export const GpuSample = z.object({
  /** `engineId` for a host, `engineId:jobId` for a Slurm job's allocation. */
  key: z.string(),
  engineId: EngineId,
  /** The engines that share this host (local Docker and local Podman are one computer). */
  engineIds: z.array(EngineId),
  containerId: ContainerId.nullable(),
  /** How the host is named: "this computer", "gpu-1 (alice@10.0.0.5)". The renderer words `local` in its language. */
  hostLabel: z.string(),
  /** `local`: this computer; `ssh`: an SSH server (a Slurm job's allocation is reached through its login node). */
  hostKind: z.enum(['local', 'ssh']),
  /** When it was read (ISO). */
  at: z.string(),
  gpus: z.array(GpuReading),
  /** `no-nvidia-smi`: the host has none (no NVIDIA driver, or not on PATH); `failed`: it ran and failed; `unreachable`: the host did not answer. */
  error: z.object({ kind: z.enum(['no-nvidia-smi', 'failed', 'unreachable']), message: z.string() }).nullable(),
  /** The disks of the checkpoint and experiment folders of the servers on this host (absent: none asked). */
  disks: z.array(DiskReading).optional(),
});

/** `gpus:home-shown`: this page shows (or stopped showing) the fleet home; GPUs are sampled faster while one does. */
export const FleetHomeShown = z.object({ pageId: PageId, shown: z.boolean() });
export const FleetHomeState = z.object({ shown: z.boolean() });

/** The fleet alerts (issue 33). */
export const AlertRule = z.enum(['gpus-idle', 'training-stalled', 'no-client', 'reward', 'disk', 'slurm-time-limit']);

/** What the user may change of each alert (defaults as issue 33 names them). */
export const AlertThresholds = z.object({
  idlePct: z.number().min(0).max(100).default(5),
  idleMinutes: z.number().min(0).max(24 * 60).default(15),
  stallFactor: z.number().min(1).max(100).default(3),
  stallMinMinutes: z.number().min(1).max(24 * 60).default(10),
  noClientMinutes: z.number().min(1).max(24 * 60).default(10),
  rewardWindow: z.number().int().min(1).max(1000).default(5),
  rewardDropFraction: z.number().min(0).max(1).default(0.5),
  diskPct: z.number().min(1).max(100).default(90),
});

/**
 * Auto-stop of one GPUs-idle episode (issue 33): `pending` until `at` (told `warnedAt`, half the auto-stop minutes
 * before), `waiting-step` when `at` came while a training step ran (it stops once the step is over), then
 * `stopped`, or `failed` (the stop did not work; `detail` of the alert says why in the app log). Acknowledging
 * the alert keeps the server (`kept`).
 */
export const AutoStopPlan = z.object({
  at: z.string(),
  warnedAt: z.string().nullable(),
  state: z.enum(['pending', 'waiting-step', 'stopped', 'failed', 'kept']),
});

/** Auto-stop of a profile (off by default): stop its server once the GPUs-idle alert has held this many more minutes. */
export const AutoStop = z.object({
  enabled: z.boolean().default(false),
  /** Fractions are allowed (tests use seconds); the form offers whole minutes. */
  minutes: z.number().min(0.1).max(7 * 24 * 60).default(30),
});

/**
 * An alert's detail as data (issue 32), the doctor's shape: the renderer words it with `fleet.say.<key>`
 * from `params` in the user's language.
 */
export const FleetAlertSay = z.object({ key: z.string().regex(/^[a-z][a-zA-Z-]*$/), params: z.record(z.string(), z.union([z.string(), z.number()])) });

/** One episode of one condition on one server: open until the condition ends (resolved); the user may acknowledge it. */
export const FleetAlert = z.object({
  id: z.string(),
  rule: AlertRule,
  engineId: EngineId,
  containerId: ContainerId,
  /** How the user knows the server: its profile's label, else its container name. */
  name: z.string(),
  state: z.enum(['open', 'acknowledged', 'resolved']),
  openedAt: z.string(),
  resolvedAt: z.string().nullable(),
  /** English detail as the notification said it (the app log, the desktop notification); the page words `say`. */
  detail: z.string(),
  /** The same detail as data (absent in a book kept from before it existed: the page shows `detail` then). */
  say: FleetAlertSay.nullable().optional(),
  /** GPUs idle on a server whose profile has auto-stop on: when it is stopped and how far that got. */
  autoStop: AutoStopPlan.nullable().optional(),
});

export type AlertRule = z.infer<typeof AlertRule>;
export type AlertThresholds = z.infer<typeof AlertThresholds>;
export type FleetAlert = z.infer<typeof FleetAlert>;
export type FleetAlertSay = z.infer<typeof FleetAlertSay>;
export type AutoStopPlan = z.infer<typeof AutoStopPlan>;
export type AutoStop = z.infer<typeof AutoStop>;
export type GpuReading = z.infer<typeof GpuReading>;
export type DiskReading = z.infer<typeof DiskReading>;
export type GpuSample = z.infer<typeof GpuSample>;
export type FleetHomeShown = z.infer<typeof FleetHomeShown>;
