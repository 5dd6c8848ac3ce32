import { z } from 'zod';

/**
 * Field types of swarm profiles that the Slurm job options use too. They live here, not in
 * schemas-profiles.ts, so that schemas-profiles can hold a profile's Slurm options without the two
 * files importing each other (a cycle leaves one side's constants undefined at load time).
 */

/** Profile ids are slugs of the label ("Qwen 7B on gpu-1" → "qwen-7b-on-gpu-1"). */
export const ProfileId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'profile id must be lowercase letters, digits or "-"');

/** An absolute POSIX path on the engine's host or in the container; no shell characters, no `..`. */
export const AbsolutePath = z
  .string()
  .trim()
  .min(1, 'path is required')
  .max(1024)
  .regex(/^\/[^\0\n"'`$\\]*$/, 'path must be absolute (start with /) and contain no quotes, $, backslash or newline')
  .refine((p) => !p.split('/').includes('..'), 'path must not contain ".."');

/** A host path that may start with `~/` (the login user's home on the engine's host). */
export const HostPath = z
  .string()
  .trim()
  .min(1, 'path is required')
  .max(1024)
  .regex(/^(\/|~\/)[^\0\n"'`$\\]*$/, 'path must be absolute (/…) or in your home (~/…) and contain no quotes, $, backslash or newline')
  .refine((p) => !p.split('/').includes('..'), 'path must not contain ".."');

/** Env variable names as POSIX shells accept them. */
export const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'env names are letters, digits and _, not starting with a digit');
