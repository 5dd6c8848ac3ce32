/** Extra fields of a log entry: small, flat values (never whole request payloads). */
export type LogMeta = Record<string, unknown>;

/**
 * What services and both transports log through. `warn` is all a console sink must offer;
 * `error` is for full errors with their stacks and is only implemented by sinks that redact and
 * keep the text private to the user (the app log), so a plain console logger never receives them.
 */
export interface Logger {
  warn(message: string, meta?: LogMeta): void;
  error?(message: string, meta?: LogMeta): void;
  info?(message: string, meta?: LogMeta): void;
}

/** Sends every entry to each logger in turn; one failing sink never stops the others. */
export function teeLogger(...loggers: Logger[]): Required<Logger> {
  const each = (level: keyof Logger, message: string, meta?: LogMeta): void => {
    for (const logger of loggers) {
      try {
        logger[level]?.(message, meta);
      } catch {
        // A logger must never break the code path that logs.
      }
    }
  };
  return {
    info: (message, meta) => each('info', message, meta),
    warn: (message, meta) => each('warn', message, meta),
    error: (message, meta) => each('error', message, meta),
  };
}

/** The text and stack of anything thrown, for the app log (redacted there before it is written). */
export function describeThrown(error: unknown): LogMeta {
  if (!(error instanceof Error)) return { thrown: String(error) };
  const cause = error.cause === undefined ? {} : { cause: error.cause instanceof Error ? error.cause.stack ?? String(error.cause) : String(error.cause) };
  return { name: error.name, error: error.stack ?? `${error.name}: ${error.message}`, ...cause };
}
