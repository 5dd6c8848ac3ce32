/**
 * The time that durations on screen are computed from ("Up 3 seconds", "booting for 1 min 12 s").
 * One interval for the whole page, running only while some component uses it: `use()` returns the
 * teardown, so `$effect(() => clock.use())` ticks exactly while that component is mounted.
 */
export class Clock {
  now = $state(Date.now());
  private users = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = 1000) {}

  use(): () => void {
    this.users += 1;
    if (this.users === 1) {
      this.now = Date.now();
      this.timer = setInterval(() => (this.now = Date.now()), this.everyMs);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users -= 1;
      if (this.users === 0) clearInterval(this.timer);
    };
  }
}

export const clock = new Clock();
