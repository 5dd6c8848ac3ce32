import { SWARM_DEFAULT_PORT } from '../../shared/defaults';
import { portInUse } from '../engines/engine-wording';
import { isLoopbackPortFree } from '../engines/local-docker';
import { describePortHolder, identifyPortHolder } from '../ssh/port-holder';

/** How many ports after a taken 10086 are tried (as the SSH tunnels do). */
const PORT_SPAN = 50;

export interface PortChoice {
  port: number;
  /** "port 10086 is taken (by python3 (pid 4242)), using 10087"; null when the first choice was free. */
  note: string | null;
  /** The same as data for the renderer's words: the port that was taken and who holds it (when known). */
  taken?: { port: number; holder: string | null };
}

/**
 * The dry run's port on 127.0.0.1: exactly the one the config names (PORT_IN_USE naming the holder
 * when it is taken), else 10086 when free, else the next free one, said in `note` so the user sets
 * AJET_SWARM_URL to the right port. `after`: a port that was free when looked at but taken before the server
 * bound it (another program, or the app's own SSH tunnels, which take ports from 10086 up too); the search goes on
 * past it, and the note still speaks of `start`.
 */
export async function choosePort(requested: number | null, start = SWARM_DEFAULT_PORT, after?: number): Promise<PortChoice> {
  const holderOf = async (port: number) => {
    const holder = await identifyPortHolder(port);
    return holder ? describePortHolder(holder) : null;
  };
  if (requested !== null) {
    if (await isLoopbackPortFree(requested)) return { port: requested, note: null };
    const holder = await identifyPortHolder(requested);
    throw portInUse(requested, holder ? `held by ${describePortHolder(holder)}` : 'on 127.0.0.1', holder);
  }
  for (let port = after === undefined ? start : after + 1; port <= Math.min(65_535, start + PORT_SPAN); port += 1) {
    if (!(await isLoopbackPortFree(port))) continue;
    if (port === start) return { port, note: null };
    const holder = await holderOf(start);
    return { port, note: `port ${start} is taken${holder ? ` (by ${holder})` : ''}, using ${port}`, taken: { port: start, holder } };
  }
  const holder = await holderOf(start);
  throw portInUse(start, `and the next ${PORT_SPAN} ports too${holder ? `; ${start} is held by ${holder}` : ''}`);
}
