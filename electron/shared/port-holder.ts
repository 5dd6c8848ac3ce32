import { z } from 'zod';

/**
 * Who holds a local port, as data: the renderer words it. `app-dry-run`: this app's own in-app dry-run swarm server
 * (the backend knows the port it bound), so the user is told to stop the dry run instead of hunting a "node" process,
 * which is the app itself. `process`: another program, as /proc names it.
 */
export const PortHolder = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('app-dry-run'), port: z.number().int().min(1).max(65_535) }),
  z.object({ kind: z.literal('process'), port: z.number().int().min(1).max(65_535), command: z.string(), pid: z.number().int().positive() }),
]);
export type PortHolder = z.infer<typeof PortHolder>;
