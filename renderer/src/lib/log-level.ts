/**
 * The level a log line states, read from the formats AgentJet's stack writes: loguru (`… | WARNING  | …`, AgentJet
 * itself), Python's logging (`ERROR:root:…`, `… - WARNING - …`, `[ERROR] …`), vLLM and glog-style prefixes
 * (`INFO 12-05 10:00:00 …`), and a Python traceback or exception line. The stream is not the level: loguru and
 * Python's logging write INFO lines to stderr, so a viewer badges and colours a line by what it says, and falls back
 * to the stream only for lines that state no level. One parser for every log view (swarm server logs, job runs).
 */
export type LogLevel = 'debug' | 'info' | 'success' | 'warning' | 'error' | 'critical';

const NAMES = 'TRACE|DEBUG|INFO|SUCCESS|WARNING|WARN|ERROR|CRITICAL|FATAL';
const FORMATS: readonly RegExp[] = [
  new RegExp(`\\|\\s*(${NAMES})\\s*\\|`), // loguru
  new RegExp(`^(${NAMES}):[^\\s:]*:`), // logging.basicConfig: LEVEL:name:message
  new RegExp(`\\s-\\s(${NAMES})\\s-\\s`), // "%(asctime)s - %(name)s - %(levelname)s - %(message)s"
  new RegExp(`^(?:\\S+\\s+){0,2}\\[(${NAMES})\\]`), // [LEVEL] after at most a date and a time
  new RegExp(`^(${NAMES})\\s+\\d\\d-\\d\\d\\s+\\d\\d:\\d\\d:\\d\\d`), // vLLM: INFO 12-05 10:00:00 [file.py:12] …
];
/** A traceback's first line, or its last: `ModuleNotFoundError: No module named 'verl'`. */
const PYTHON_FAILURE = /^(Traceback \(most recent call last\):|[A-Za-z_.]*(Error|Exception|Interrupt): )/;

function normalise(name: string): LogLevel {
  switch (name) {
    case 'TRACE':
      return 'debug';
    case 'WARN':
      return 'warning';
    case 'FATAL':
      return 'critical';
    default:
      return name.toLowerCase() as LogLevel;
  }
}

export function logLevelOf(text: string): LogLevel | null {
  for (const format of FORMATS) {
    const match = format.exec(text);
    if (match?.[1]) return normalise(match[1]);
  }
  return PYTHON_FAILURE.test(text.trimStart()) ? 'error' : null;
}

/** Levels a viewer marks with a badge of their own (the others are the ordinary run of a log). */
export function isMarkedLevel(level: LogLevel | null): level is 'warning' | 'error' | 'critical' {
  return level === 'warning' || level === 'error' || level === 'critical';
}
