// Command-line argument validation shared by every command: options given
// twice, integers, durations, operator texts (identities, reasons, notes:
// control characters and byte limits) and texts read from a file or stdin.
// Every refusal is a usage error (exit 2) that names the flag.
import { readFileSync } from 'node:fs';
import { CliError } from './common.js';
import { EXIT } from './exit-codes.js';

/** Byte limits the SQL API enforces (_require_identity, _require_operator_text, submit's host). */
export const LIMITS = { identity: 512, text: 4096, host: 253, executorId: 256 } as const;

function usage(message: string, flag: string): CliError {
  return new CliError(message, EXIT.usage, { flag });
}

/**
 * yargs turns a repeated option into an array (`--approved-by a --approved-by
 * b`), which a string would then join into "a,b". Every option of this CLI
 * is single-valued, so any array value (except the positional list `_`) is
 * refused, naming the flag. `arrayOptions` lists options declared as arrays.
 */
export function refuseRepeatedOptions(argv: Record<string, unknown>, arrayOptions: ReadonlySet<string> = new Set()): void {
  for (const [key, value] of Object.entries(argv)) {
    if (key === '_' || key === '$0' || arrayOptions.has(key)) continue;
    // yargs also sets a camelCase alias of every dashed option: report the dashed one.
    if (/[A-Z]/.test(key) && Object.prototype.hasOwnProperty.call(argv, dashed(key))) continue;
    if (Array.isArray(value)) {
      const flag = key.length === 1 ? `-${key}` : `--${key}`;
      throw usage(`${flag} was given ${value.length} times; it takes exactly one value`, flag);
    }
  }
}

function dashed(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** An integer option given as text: digits only (no 1.5, 1e3, 0x10, " 7"), within [min, max]. */
export function parseIntegerOption(value: unknown, flag: string, min: number, max: number): number {
  const raw = String(value);
  if (!/^-?\d+$/.test(raw)) throw usage(`${flag} ${JSON.stringify(raw)} is not an integer (expected ${min}..${max})`, flag);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw usage(`${flag} ${raw} is outside ${min}..${max}`, flag);
  return n;
}

const UNIT_SECONDS: Record<string, number> = {
  s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3600, hour: 3600, hours: 3600,
  d: 86_400, day: 86_400, days: 86_400,
  w: 604_800, week: 604_800, weeks: 604_800,
};

/** The longest accepted --delay (a year): anything longer is a typo. */
export const MAX_DELAY_SECONDS = 366 * 86_400;

/**
 * A duration: `90s`, `30m`, `2h`, `7d`, `1h30m`, or the spelled-out form of a
 * PostgreSQL interval (`24 hours`, `1 day 2 hours`). Returns whole seconds.
 * Anything else is a usage error naming the flag — never a SQL error.
 */
export function parseDuration(value: unknown, flag = '--delay', maxSeconds = MAX_DELAY_SECONDS): number {
  const raw = String(value).trim().toLowerCase();
  const part = /(\d+)\s*([a-z]+)\s*/y;
  let total = 0;
  let matched = 0;
  part.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (raw.length > 0 && (m = part.exec(raw)) !== null) {
    const unit = UNIT_SECONDS[m[2]!];
    if (unit === undefined) break;
    total += Number(m[1]) * unit;
    matched = part.lastIndex;
  }
  if (raw.length === 0 || matched !== raw.length) {
    throw usage(`${flag} ${JSON.stringify(String(value))} is not a duration (examples: 90s, 30m, 2h, 7d, 1h30m, "24 hours")`, flag);
  }
  if (!Number.isSafeInteger(total) || total > maxSeconds) throw usage(`${flag} ${JSON.stringify(String(value))} is longer than ${maxSeconds} seconds`, flag);
  return total;
}

/** C0 controls but tab/LF/CR, DEL and C1 (what an operator's free text may not hold). */
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
/** Any control character (identities are one line). */
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * An operator identity (--requested-by, --approved-by, --aborted-by,
 * --unblocked-by): non-blank, no control character at all (no escape
 * sequence, tab or line break), at most 512 bytes of UTF-8 once trimmed.
 */
export function requireIdentity(value: unknown, flag: string): string {
  const text = singleString(value, flag).trim();
  if (text === '') throw usage(`${flag} is empty: name the operator`, flag);
  if (ANY_CONTROL.test(text)) throw usage(`${flag} contains control characters (escape sequences, tabs, line breaks): pass plain text`, flag);
  limitBytes(text, flag, LIMITS.identity);
  return text;
}

/**
 * --executor-id: stored as the lease owner and shown by inspect/list, so like
 * an operator identity — non-blank, no control character (an escape sequence
 * would repaint the terminal of whoever inspects the request), trimmed — at
 * most 256 bytes of UTF-8, the limit community_deletion.claim enforces.
 * Absent (undefined) means the default host:pid:random.
 */
export function optionalExecutorId(value: unknown, flag = '--executor-id'): string | undefined {
  if (value === undefined) return undefined;
  const text = singleString(value, flag).trim();
  if (text === '') throw usage(`${flag} is empty: name the executor, or leave the flag out for the default (host:pid:random)`, flag);
  if (ANY_CONTROL.test(text)) throw usage(`${flag} contains control characters (escape sequences, tabs, line breaks): pass plain text`, flag);
  limitBytes(text, flag, LIMITS.executorId);
  return text;
}

/**
 * A free text (--reason, --note, or the content of --reason-file /
 * --note-file): tabs and line breaks allowed, other control characters
 * (escape sequences) refused, at most 4096 bytes of UTF-8 once trimmed —
 * refused with the limit named, never truncated. Blank → undefined.
 */
export function optionalText(value: unknown, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const text = singleString(value, flag).trim();
  if (text === '') return undefined;
  if (TEXT_CONTROL.test(text)) throw usage(`${flag} contains control characters (escape sequences): only plain text, tabs and line breaks are allowed`, flag);
  limitBytes(text, flag, LIMITS.text);
  return text;
}

export function requireText(value: unknown, flag: string): string {
  const text = optionalText(value, flag);
  if (text === undefined) throw usage(`${flag} is required and must not be blank`, flag);
  return text;
}

function singleString(value: unknown, flag: string): string {
  if (Array.isArray(value)) throw usage(`${flag} was given ${value.length} times; it takes exactly one value`, flag);
  return String(value);
}

function limitBytes(text: string, flag: string, max: number): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > max) throw usage(`${flag} is ${bytes} bytes; the limit is ${max} bytes (UTF-8). Nothing is truncated: shorten it`, flag);
}

/**
 * The text of `--X` or of `--X-file F` (`-` reads stdin), which are mutually
 * exclusive. `readStdin` is injectable for tests.
 */
export function textOrFile(
  inline: unknown,
  file: unknown,
  flag: string,
  readStdin: () => string = () => readFileSync(0, 'utf8'),
): unknown {
  if (file === undefined) return inline;
  if (inline !== undefined) throw usage(`give ${flag} or ${flag}-file, not both`, `${flag}-file`);
  const path = singleString(file, `${flag}-file`);
  try {
    return path === '-' ? readStdin() : readFileSync(path, 'utf8');
  } catch (error) {
    throw usage(`${flag}-file ${JSON.stringify(path)}: ${(error as Error).message}`, `${flag}-file`);
  }
}
