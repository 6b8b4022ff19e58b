// Human output for a terminal: aligned tables and key/value blocks, and the
// one JSON shape every command emits (snake_case keys, ISO 8601 UTC times).
// Every text shown on a terminal passes through escapeControl: identities,
// reasons and errors are stored data, and a stored escape sequence must be
// shown, never executed.

/**
 * Control characters (C0, DEL, C1) made visible: \n, \r, \t and \e as
 * backslash escapes, others as \xNN / \u{NNNN}; a backslash itself is left
 * alone. Applied to every cell and value printed for humans.
 */
export function escapeControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/gu, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      case '\u001b':
        return '\\e';
      default: {
        const code = c.codePointAt(0)!;
        return `\\x${code.toString(16).padStart(2, '0')}`;
      }
    }
  });
}

export interface TableOptions {
  /** Cap each named column at this many characters (with an ellipsis). */
  maxWidths?: Readonly<Record<string, number>>;
}

/** Cut text to at most `max` characters, ending with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return max <= 1 ? '…' : `${chars.slice(0, max - 1).join('')}…`;
}

export function table(rows: readonly object[], columns: readonly string[], options: TableOptions = {}): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) =>
    columns.map((c) => {
      const value = text(field(row, c), c);
      const max = options.maxWidths?.[c];
      return max === undefined ? value : truncate(value, max);
    }),
  );
  const len = (s: string) => Array.from(s).length;
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => len(r[i] ?? ''))));
  const line = (values: readonly string[]) =>
    values.map((v, i) => v + ' '.repeat(Math.max(0, (widths[i] ?? 0) - len(v)))).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export function keyValues(value: object, keys?: readonly string[]): string {
  const ks = (keys ?? Object.keys(value)).filter((k) => field(value, k) !== undefined);
  if (ks.length === 0) return '(none)';
  const width = Math.max(...ks.map((k) => k.length));
  return ks.map((k) => `${k.padEnd(width)}  ${text(field(value, k), k)}`).join('\n');
}

function field(value: object, key: string): unknown {
  return Reflect.get(value, key);
}

/**
 * A time in ISO 8601 UTC. A Date that holds no time (an Invalid Date: what a
 * timestamp such as `infinity` becomes when parsed by new Date) prints as
 * "invalid date" instead of throwing; src/db.ts keeps such values as
 * PostgreSQL's own text (`infinity`), which the formatters print unchanged.
 */
export function dateText(d: Date): string {
  return Number.isNaN(d.getTime()) ? 'invalid date' : d.toISOString();
}

/** One cell or value for a human: times in ISO 8601 UTC, objects as JSON, control characters escaped. */
export function text(v: unknown, key = ''): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return dateText(v);
  if (typeof v === 'object') return escapeControl(JSON.stringify(normalizeJson(v, key)));
  if (typeof v === 'string') return escapeControl(TIME_KEY.test(key) ? (isoUtc(v) ?? v) : v);
  return escapeControl(String(v));
}

const PG_TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * A PostgreSQL/JSON timestamp with an offset ("2026-12-01T06:27:04.123456+02:00")
 * in ISO 8601 UTC with Z, keeping its fractional digits; undefined when the
 * string is not such a timestamp.
 */
export function isoUtc(s: string): string | undefined {
  const m = PG_TIMESTAMP.exec(s);
  if (!m) return undefined;
  const [, date, time, fraction = '', zone] = m;
  let offset = zone === 'Z' ? '+00:00' : zone!;
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  const d = new Date(`${date}T${time}${offset}`);
  if (Number.isNaN(d.getTime())) return undefined;
  return `${d.toISOString().slice(0, 19)}${fraction}Z`;
}

/** camelCase → snake_case for an identifier-like key; other keys (table names, prefixes) unchanged. */
function snakeKey(key: string): string {
  return /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
}

/** Keys whose string values are times (the SQL's naming: created_at, lease_until, not_before…). */
const TIME_KEY = /(?:_at|_until|^not_before|_time)$/;

/**
 * The JSON every command prints: keys in snake_case (like the SQL API),
 * times as ISO 8601 UTC with Z (Date objects, and timestamp strings from
 * jsonb under a time-named key; other strings — reasons, notes — are left
 * exactly as stored).
 */
export function normalizeJson(value: unknown, key = ''): unknown {
  if (value instanceof Date) return dateText(value);
  if (typeof value === 'string') return TIME_KEY.test(key) ? (isoUtc(value) ?? value) : value;
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v) => normalizeJson(v, key));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeKey(k), normalizeJson(v, snakeKey(k))]));
  }
  return value;
}

/**
 * A one-line progress indicator on stderr (only when stderr is a TTY). Log
 * lines go through `log`, which clears the bar, writes the line and redraws
 * the bar below it, so a log line never overwrites the bar nor the bar a log.
 */
export class Progress {
  private last = 0;
  private current = '';
  private readonly enabled: boolean;
  private readonly write: (s: string) => void;

  constructor(options: { enabled?: boolean; write?: (s: string) => void } = {}) {
    this.enabled = options.enabled ?? Boolean(process.stderr.isTTY);
    this.write = options.write ?? ((s) => process.stderr.write(s));
    if (this.enabled && options.write === undefined) active = this;
  }

  update(label: string, done: number, total?: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100 && (total === undefined || done < total)) return;
    this.last = now;
    let bar = '';
    if (total !== undefined && total > 0) {
      const width = 30;
      const filled = Math.round((Math.min(done, total) / total) * width);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] `;
    }
    this.current = `${bar}${escapeControl(label)} ${done}${total !== undefined ? `/${total}` : ''}`;
    this.write(`\r${this.current}\x1b[K`);
  }

  /** Writes a complete log line (ending in \n) above the bar. */
  log(line: string): void {
    if (!this.enabled || this.current === '') {
      this.write(line);
      return;
    }
    this.write(`\r\x1b[K${line}\r${this.current}\x1b[K`);
  }

  done(): void {
    if (this.enabled && this.current !== '') this.write('\r\x1b[K');
    this.current = '';
    if (active === this) active = undefined;
  }
}

let active: Progress | undefined;

/** Writes a log line on stderr, above the progress bar when one is shown. */
export function writeLogLine(line: string): void {
  if (active) active.log(line);
  else process.stderr.write(line);
}
