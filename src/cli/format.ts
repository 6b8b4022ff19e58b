// Human output for a terminal: aligned tables and key/value blocks. Scripts
// get JSON instead (see common.ts), so nothing here is parsed by machines.

export function table(rows: readonly object[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((c) => text(field(row, c))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (values: readonly string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export function keyValues(value: object, keys?: readonly string[]): string {
  const ks = keys ?? Object.keys(value);
  const width = Math.max(...ks.map((k) => k.length));
  return ks
    .filter((k) => field(value, k) !== undefined)
    .map((k) => `${k.padEnd(width)}  ${text(field(value, k))}`)
    .join('\n');
}

function field(value: object, key: string): unknown {
  return Reflect.get(value, key);
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A one-line progress indicator on stderr (only when stderr is a TTY). */
export class Progress {
  private last = 0;
  private readonly enabled = Boolean(process.stderr.isTTY);

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
    process.stderr.write(`\r${bar}${label} ${done}${total !== undefined ? `/${total}` : ''}\x1b[K`);
  }

  done(): void {
    if (this.enabled) process.stderr.write('\r\x1b[K');
  }
}
