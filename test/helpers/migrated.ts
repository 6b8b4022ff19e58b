// A database the migrations built (scripts/lib.sh build_from_migrations: the
// committed migrations, then current.sql), made once per test file for the
// scripts that would otherwise build their own on every run (parity.sh,
// function-sources.sh): they clone it when DELETIONS_MIGRATED_TEMPLATE names
// it. Dropped in the file's teardown. Under scripts/test.sh, which builds one
// for the whole run and sets DELETIONS_MIGRATED_TEMPLATE, that one is used.
import { spawnSync } from 'node:child_process';
import type { Test } from 'tap';

export function migratedTemplate(t: Test, root: string): string {
  // scripts/test.sh built one for the whole run: the same build, once.
  const shared = process.env.DELETIONS_MIGRATED_TEMPLATE;
  if (shared) return shared;
  const name = `cd_t_${process.pid}_migrated`; // cd_t_<pid>_…: scripts/test.sh drops it if the process dies
  const lib = `${root}/scripts/lib.sh`;
  const built = spawnSync('bash', ['-c', 'source "$1" && build_from_migrations "$2"', 'migrated', lib, name], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build_from_migrations ${name} failed:\n${built.stdout}${built.stderr}`);
  t.teardown(() => {
    spawnSync('bash', ['-c', 'source "$1" && drop_db "$2"', 'migrated', lib, name], { encoding: 'utf8' });
  });
  return name;
}
