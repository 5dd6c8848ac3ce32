// A clock moved ahead, for `npm run test:shifted-clock` (scripts/test-shifted-clock.mjs), which preloads this file into
// every Node process of the run (NODE_OPTIONS=--import): vitest and its workers, and the fakes they start as processes
// of their own (the fake swarm's CLI), so all of them agree on the time. Every `new Date()` and `Date.now()` reads the
// real time plus AGENTSWARM_TEST_CLOCK_SHIFT_DAYS days; dates built from a value stay as given. It finds fixtures that
// mix fixed dates with "now" (a test right on the day it was written and wrong a day later) a year before they go off.
//
// Why not Debian's faketime around vitest: libfaketime also reaches the Python children (the ajet stub, the job
// runner's scripts) and breaks their waits: with CLOCK_MONOTONIC shifted, `threading.Event.wait(0.1)` never returns
// (the stub's claim retries and status polls time out); with FAKETIME_DONT_FAKE_MONOTONIC=1, `time.sleep` fails with
// EINVAL (measured 2026-12-05, Python 3.11, faketime 0.9.10). That is the tool, not a clock dependence of our code.
// Python children keep the real clock here; what they time stamps is compared with the real clock by our code.
//
// Why not vi.setSystemTime: without fake timers it freezes the clock (code that measures elapsed time never sees time
// pass). Installed before vitest loads, this Date is also the one vitest puts back after a test's fake timers.
const raw = process.env.AGENTSWARM_TEST_CLOCK_SHIFT_DAYS ?? '0';
const days = Number(raw);
if (!Number.isFinite(days)) throw new Error(`AGENTSWARM_TEST_CLOCK_SHIFT_DAYS must be a number of days, not "${raw}"`);

if (days !== 0 && !globalThis.__agentswarmShiftedClock) {
  const offsetMs = days * 86_400_000;
  const RealDate = globalThis.Date;
  const shiftedNow = () => RealDate.now() + offsetMs;
  // A Proxy keeps Date's prototype, statics (parse, UTC) and `instanceof Date` as they are.
  globalThis.Date = new Proxy(RealDate, {
    construct(target, args, newTarget) {
      return Reflect.construct(target, args.length === 0 ? [shiftedNow()] : args, newTarget);
    },
    // `Date()` called without new: the current time as a string.
    apply() {
      return new RealDate(shiftedNow()).toString();
    },
    get(target, key, receiver) {
      return key === 'now' ? shiftedNow : Reflect.get(target, key, receiver);
    },
  });
  Object.defineProperty(globalThis, '__agentswarmShiftedClock', { value: days });
}
