// Managed mode's rewrite of the committed migrations (src/managed.ts) is
// pinned: exactly the superuser-only statements are guarded, every file gets
// the DDL-lock prelude and AllowInvalidHash, and a file with an unguarded
// superuser-only statement that is not pinned is refused before anything runs.
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DDL_LOCK_PRELUDE, rewriteCommittedMigration } from '../src/managed.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const committed = path.join(root, 'db', 'migrations', 'committed');
const files = (await readdir(committed)).filter((f) => f.endsWith('.sql')).sort();

t.test('every committed migration rewrites; nothing superuser-only is left unguarded', async (t) => {
  for (const f of files) {
    const text = await readFile(path.join(committed, f), 'utf8');
    const out = rewriteCommittedMigration(f, text);
    t.ok(out.includes(`\n\n${DDL_LOCK_PRELUDE}`), `${f}: the DDL-lock prelude follows the headers`);
    t.match(out, /^--! AllowInvalidHash$/m, `${f}: AllowInvalidHash`);
    t.equal(/^--! Hash: (\S+)$/m.exec(out)?.[1], /^--! Hash: (\S+)$/m.exec(text)?.[1], `${f}: the recorded hash is kept`);
    t.notMatch(out, /^\s*(create|drop|alter) event trigger/im, `${f}: no event-trigger statement outside a guard`);
    t.notMatch(out, /case when v_role\.bypass_rls then 'bypassrls'/, `${f}: BYPASSRLS only under the superuser guard`);
    t.equal((out.match(/^--! AllowInvalidHash$/gm) ?? []).length, 1, `${f}: one AllowInvalidHash header`);
  }
});

t.test('the guards are the ones pinned for 000003, 000007 and 000009', async (t) => {
  const count = async (prefix: string, re: RegExp) => {
    const f = files.find((x) => x.startsWith(prefix))!;
    const out = rewriteCommittedMigration(f, await readFile(path.join(committed, f), 'utf8'));
    return (out.match(re) ?? []).length;
  };
  t.equal(await count('000003', /execute 'create event trigger/g), 3);
  t.equal(await count('000007', /execute 'create event trigger/g), 3);
  t.equal(await count('000007', /execute 'drop event trigger if exists/g), 6);
  t.equal(await count('000009', /execute 'create event trigger/g), 4);
  t.equal(await count('000007', /grant create on schema community_deletion to community_deletion_owner/g), 1);
});

t.test('an unpinned migration with an unguarded superuser-only statement is refused', async (t) => {
  const text = [
    '--! Previous: sha1:0000000000000000000000000000000000000000',
    '--! Hash: sha1:1111111111111111111111111111111111111111',
    '--! Message: future',
    '',
    'drop event trigger if exists _900_x;',
    'create event trigger _900_x',
    '  on ddl_command_start',
    '  execute function community_deletion.f();',
    '',
  ].join('\n');
  t.throws(() => rewriteCommittedMigration('000099-future.sql', text), { name: 'ManagedRewriteError' });
  const alter = text.replace(/drop event trigger[\s\S]*$/, 'alter event trigger _900_x disable;\n');
  t.throws(() => rewriteCommittedMigration('000099-future.sql', alter), { name: 'ManagedRewriteError' });
  const fine = text.replace(/drop event trigger[\s\S]*$/, 'select 1;\n');
  t.match(rewriteCommittedMigration('000099-future.sql', fine), /^--! AllowInvalidHash$/m);
});

t.test('a pinned file whose statements changed is refused', async (t) => {
  const f = files.find((x) => x.startsWith('000009'))!;
  const text = await readFile(path.join(committed, f), 'utf8');
  const tampered = text.replace(/^drop event trigger if exists _110_guard_registered_tables;\n/m, '');
  t.throws(() => rewriteCommittedMigration(f, tampered), { name: 'ManagedRewriteError' });
});
