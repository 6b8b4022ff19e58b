// Structured logs of the executor commands (run, drain, worker, sweep) through
// pino, on stderr (stdout carries only the command's result). `json`: one
// JSON object per line (time in ISO 8601 UTC, level name, msg, event fields
// in snake_case) for log collectors; `text`: the same records as one readable
// line each (the default on a terminal).
import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';

export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

export type { Logger };

/** text on a terminal, json otherwise (a log collector reads stderr). */
export function defaultLogFormat(stream: { isTTY?: boolean } = process.stderr): LogFormat {
  return stream.isTTY ? 'text' : 'json';
}

const RESERVED = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

function textValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/** One record as a line: `<time> <LEVEL> <msg> key=value …`. Control characters are escaped (JSON). */
export function formatText(record: Record<string, unknown>): string {
  const fields = Object.entries(record)
    .filter(([k]) => !RESERVED.has(k))
    .map(([k, v]) => `${k}=${textValue(v)}`);
  const level = String(record.level ?? 'info').toUpperCase();
  const msg = JSON.stringify(String(record.msg ?? '')).slice(1, -1);
  return `${String(record.time ?? new Date().toISOString())} ${level} ${msg}${fields.length ? ` ${fields.join(' ')}` : ''}\n`;
}

/** Synchronous writes to fd 2: a record is on stderr before the process exits, however it exits. */
function destination(format: LogFormat, fd: number): DestinationStream {
  if (format === 'json') return { write: (line: string) => void writeSync(fd, line) };
  return {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        writeSync(fd, line);
        return;
      }
      writeSync(fd, formatText(record));
    },
  };
}

export function createLogger(format: LogFormat, bindings: Record<string, unknown> = {}, fd = 2): Logger {
  return pino(
    {
      base: bindings,
      level: process.env.DELETIONS_LOG_LEVEL?.trim() || 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination(format, fd),
  );
}

/** A URL without its password (for a start-up summary). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = 'redacted';
    return u.toString();
  } catch {
    return '(unparseable)';
  }
}
